// Original file: /work/main/proto/api.proto


export interface StopContainerResponse {
}

export interface StopContainerResponse__Output {
}
