// The link between edge-send-command and edge-await-command: what is known of a sent command.
/** What edge-await-command reads from msg.command. */
export interface CommandRef {
  id?: string;
  streamId?: string;
  path?: string;
  creationDate: number;
  device?: string;
  ttl?: number;
  /** Local clock when the command was sent. */
  sentAt: number;
}
