// src/systemd owns the agent's side of systemd's service protocol: sd_notify (READY=1, WATCHDOG=1,
// STOPPING=1) to $NOTIFY_SOCKET. logind (the shutdown delay lock) is src/nodeshutdown's.
export { LibcNotifySocket, notifyAddress, SdNotifier, type NotifySocket, type SdNotifierOptions } from "./sd-notify";
