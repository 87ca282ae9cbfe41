// Original file: /work/main/proto/api.proto


export interface RemoveContainerResponse {
}

export interface RemoveContainerResponse__Output {
}
