// The worker heartbeat's timing: pure, shared by the Store, the worker and `syntheo doctor`.

/** A worker renews its heartbeat this often... */
export const HEARTBEAT_INTERVAL_MS = 2_000;
/** ...and counts as alive (the app is "open") while its last heartbeat is this recent. */
export const HEARTBEAT_FRESH_MS = 15_000;
