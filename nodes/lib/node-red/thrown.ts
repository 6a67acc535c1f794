// What a thrown value is, whatever realm threw it. A Function node runs in its own `vm` context:
// an Error it throws (from a getter it put on a msg, say) is not `instanceof Error` here, and a
// stack overflow inside its code is that context's RangeError. The built-in tag of an Error is
// the same in every realm, so it, not the prototype, says what the value is.

/** Whether `value` is an Error of any realm (the tag a built-in Error carries). */
export function isErrorLike(value: unknown): value is Error {
  try {
    return (
      typeof value === "object" &&
      value !== null &&
      Object.prototype.toString.call(value) === "[object Error]"
    );
  } catch {
    // A proxy whose traps throw.
    return false;
  }
}

/** Text of any thrown value, even one whose toString() or getters throw. */
export function textOf(value: unknown): string {
  try {
    return isErrorLike(value) ? `${value.name}: ${value.message}` : String(value);
  } catch {
    return "an unprintable value";
  }
}

/** Whether a thrown value is a stack overflow (V8's RangeError "Maximum call stack size ..."). */
export function isStackOverflow(value: unknown): boolean {
  try {
    return (
      isErrorLike(value) &&
      value.name === "RangeError" &&
      typeof value.message === "string" &&
      /call stack/i.test(value.message)
    );
  } catch {
    return false;
  }
}
