// Original file: /work/main/proto/api.proto


export interface RemoveImageResponse {
}

export interface RemoveImageResponse__Output {
}
