// The heartbeat's timing, shared by the worker (which beats) and the readers (which judge it). No SQL here.

/** A worker renews its heartbeat this often... */
export const HEARTBEAT_INTERVAL_MS = 2_000;
/** ...and counts as alive (the app is "open") while its last heartbeat is this recent. */
export const HEARTBEAT_FRESH_MS = 15_000;
