// Original file: /work/main/proto/api.proto


export interface StopPodSandboxResponse {
}

export interface StopPodSandboxResponse__Output {
}
