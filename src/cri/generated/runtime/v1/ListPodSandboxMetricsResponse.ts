// Original file: /work/main/proto/api.proto

import type { PodSandboxMetrics as _runtime_v1_PodSandboxMetrics, PodSandboxMetrics__Output as _runtime_v1_PodSandboxMetrics__Output } from '../../runtime/v1/PodSandboxMetrics';

export interface ListPodSandboxMetricsResponse {
  'podMetrics'?: (_runtime_v1_PodSandboxMetrics)[];
}

export interface ListPodSandboxMetricsResponse__Output {
  'podMetrics': (_runtime_v1_PodSandboxMetrics__Output)[];
}
