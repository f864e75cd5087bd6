/** The origin of a URL (for a page's form targets), or null when there is none or it does not parse. */
export const originOf = (url: string | null | undefined) => {
  try {
    return url ? new URL(url).origin : null;
  } catch {
    return null;
  }
};
