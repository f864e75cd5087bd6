import { handleEvent } from '../decision-loop';
import { decide, type SessionEffect, type SessionEvent, type SessionState } from '../../domain/checkout-session';

/**
 * What running a session's effects needs: the workflow passes its activities and Temporal's
 * commands, a test passes the activities themselves (test/proof/money-rules.property.test.ts), so
 * both run the same decisions in the same order. Each returns what the effect reports, if anything.
 */
export interface SessionPorts {
  move(effect: Extract<SessionEffect, { kind: 'move' }>): Promise<void>;
  recordShortfall(effect: Extract<SessionEffect, { kind: 'recordShortfall' }>): Promise<string | null>;
  credit(effect: Extract<SessionEffect, { kind: 'credit' }>): Promise<Omit<Extract<SessionEvent, { kind: 'credited' }>, 'kind'>>;
  uncredit(effect: Extract<SessionEffect, { kind: 'uncredit' }>): Promise<string>;
  recordLateDeposit(effect: Extract<SessionEffect, { kind: 'recordLateDeposit' }>): Promise<string | null>;
  recordLateSuccess(effect: Extract<SessionEffect, { kind: 'recordLateSuccess' }>): Promise<string | null>;
  completeFromProvider(
    effect: Extract<SessionEffect, { kind: 'completeFromProvider' }>,
  ): Promise<Extract<SessionEvent, { kind: 'providerCompleted' }>['completion']>;
  announceException(exceptionId: string): Promise<void>;
  markCompleted(effect: Extract<SessionEffect, { kind: 'markCompleted' }>): Promise<void>;
  linkPaid(linkId: string): Promise<void>;
}

/** Runs one effect; what it learned is the next event, if anything. An exception it recorded is announced. */
async function perform(effect: SessionEffect, ports: SessionPorts): Promise<SessionEvent | null> {
  const announce = async (exceptionId: string | null) => {
    if (exceptionId) await ports.announceException(exceptionId);
    return null;
  };
  switch (effect.kind) {
    case 'move':
      await ports.move(effect);
      return null;
    case 'recordShortfall':
      return announce(await ports.recordShortfall(effect));
    case 'credit':
      return { kind: 'credited', ...(await ports.credit(effect)) };
    case 'uncredit':
      return { kind: 'uncredited', creditedMicro: await ports.uncredit(effect) };
    case 'recordLateDeposit':
      return announce(await ports.recordLateDeposit(effect));
    case 'recordLateSuccess':
      return announce(await ports.recordLateSuccess(effect));
    case 'completeFromProvider':
      return { kind: 'providerCompleted', completion: await ports.completeFromProvider(effect) };
    case 'announceException':
      return announce(effect.exceptionId);
    case 'markCompleted':
      await ports.markCompleted(effect);
      return null;
    case 'linkPaid':
      await ports.linkPaid(effect.linkId);
      return null;
  }
}

/** One event through the session's rules (decision-loop.ts): the state after it and every report of its effects. */
export const handleSessionEvent = (state: SessionState, event: SessionEvent, ports: SessionPorts): Promise<SessionState> =>
  handleEvent(decide, (effect) => perform(effect, ports), state, event);
