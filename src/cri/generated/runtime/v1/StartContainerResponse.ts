// Original file: /work/main/proto/api.proto


export interface StartContainerResponse {
}

export interface StartContainerResponse__Output {
}
