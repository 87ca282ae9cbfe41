// Original file: /work/main/proto/api.proto


export interface ListPodSandboxMetricsRequest {
}

export interface ListPodSandboxMetricsRequest__Output {
}
