// Original file: /work/main/proto/api.proto


export interface GetEventsRequest {
}

export interface GetEventsRequest__Output {
}
