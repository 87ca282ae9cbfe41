// Original file: /work/main/proto/api.proto


export interface UpdateContainerResourcesResponse {
}

export interface UpdateContainerResourcesResponse__Output {
}
