// Keeps the token out of any text taken from an answer (a server may echo what it was sent) and out
// of any text built from such an answer. The whole token is replaced first, before any cut, so a
// cut cannot leave most of it behind; then every piece of 8 or more of its characters is replaced
// too, since a server (or a cut of ours) may already have shortened it.
export const REDACTED = "[REDACTED]";
/** Shorter pieces of a token are as likely to be ordinary text as a leak. */
export const MIN_PIECE = 8;

export function redact(text: string, secret: string): string {
  if (!secret || !text) return text;
  let out = text.includes(secret) ? text.replaceAll(secret, REDACTED) : text;
  if (secret.length <= MIN_PIECE) return out;
  // Marks every character covered by a piece of the token (length >= MIN_PIECE) in `out`.
  const covered = new Uint8Array(out.length);
  let any = false;
  for (let i = 0; i + MIN_PIECE <= secret.length; i++) {
    const seed = secret.slice(i, i + MIN_PIECE);
    for (let at = out.indexOf(seed); at >= 0; at = out.indexOf(seed, at + 1)) {
      covered.fill(1, at, at + MIN_PIECE);
      any = true;
    }
  }
  if (!any) return out;
  let result = "";
  for (let i = 0; i < out.length;) {
    if (!covered[i]) {
      result += out.charAt(i++);
      continue;
    }
    while (i < out.length && covered[i]) i++;
    result += REDACTED;
  }
  out = result;
  return out;
}

/** A single line of at most `max` characters, cut after redaction so no cut can keep a token. */
export function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 3)}...` : text;
}
