/**
 * What the administration needs of the live view's open streams: how many there are, and ending
 * an account's at once. The live area's feed provides it; the administration sees only this.
 */
export interface LiveStreams {
  readonly size: number;
  close(match: (client: { accountId: number }) => boolean): void;
}
