// Original file: /work/main/proto/api.proto


export interface ListMetricDescriptorsRequest {
}

export interface ListMetricDescriptorsRequest__Output {
}
