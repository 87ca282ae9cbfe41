// Original file: /work/main/proto/api.proto


export interface RuntimeConfigRequest {
}

export interface RuntimeConfigRequest__Output {
}
