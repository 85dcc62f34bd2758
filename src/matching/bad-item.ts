/** A value that cannot be matched: the message says what is wrong (a 422 on `value`). */
export class BadItem extends Error {}
