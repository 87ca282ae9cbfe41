// Why a container of a sync did not start: the waiting reason and message its status shows, and when
// the sync should be tried again (a backoff's end), else the pod worker's error backoff.
export class ContainerStartError extends Error {
  constructor(
    readonly reason: string,
    message: string,
    readonly retryAt?: number,
    /**
     * What startContainer's "Error: …" event says, when not the message: the image manager's errors
     * are the bare reason there (`Error: ErrImagePull`), as the kubelet's gRPC status message is.
     */
    readonly eventMessage?: string,
  ) {
    super(message);
  }
}
