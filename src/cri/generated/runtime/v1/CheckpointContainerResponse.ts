// Original file: /work/main/proto/api.proto


export interface CheckpointContainerResponse {
}

export interface CheckpointContainerResponse__Output {
}
