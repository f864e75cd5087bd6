import * as Toast from '@radix-ui/react-toast';
import { IconButton } from '@radix-ui/themes';
import { createContext, useCallback, useContext, useState, type ReactNode } from 'react';

// A change that worked says so in a toast (Radix's toast primitive: Radix Themes has none), which Radix announces politely to screen readers (its
// toasts sit in a role=status region) and keeps while hovered or focused. One provider in the frame,
// so a toast outlives the page that asked for it (a dialog closing, a list refetching).

interface Shown {
  id: number;
  text: string;
}

const ToastContext = createContext<(text: string) => void>(() => {});

/** Shows `text` as a toast: what just happened, in the merchant's words ("Payment link created."). */
export function useToast(): (text: string) => void {
  return useContext(ToastContext);
}

let nextId = 0;

export function ToastProvider({ children }: { children: ReactNode }) {
  const [shown, setShown] = useState<Shown[]>([]);
  const show = useCallback((text: string) => setShown((s) => [...s, { id: ++nextId, text }]), []);
  const close = (id: number) => setShown((s) => s.filter((t) => t.id !== id));
  return (
    <Toast.Provider swipeDirection="right" duration={6000} label="Notification">
      <ToastContext.Provider value={show}>{children}</ToastContext.Provider>
      {shown.map((t) => (
        // Background: announced politely (role=status), after what the screen reader is saying.
        <Toast.Root key={t.id} type="background" className="toast" onOpenChange={(open) => open || close(t.id)}>
          <Toast.Description>{t.text}</Toast.Description>
          <Toast.Close asChild>
            <IconButton type="button" variant="ghost" color="gray" aria-label="Dismiss">
              <span aria-hidden>×</span>
            </IconButton>
          </Toast.Close>
        </Toast.Root>
      ))}
      <Toast.Viewport className="toast-viewport" />
    </Toast.Provider>
  );
}
