// Original file: /work/main/proto/api.proto


export interface ReopenContainerLogResponse {
}

export interface ReopenContainerLogResponse__Output {
}
