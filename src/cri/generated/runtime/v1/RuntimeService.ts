// Original file: /work/main/proto/api.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { AttachRequest as _runtime_v1_AttachRequest, AttachRequest__Output as _runtime_v1_AttachRequest__Output } from '../../runtime/v1/AttachRequest';
import type { AttachResponse as _runtime_v1_AttachResponse, AttachResponse__Output as _runtime_v1_AttachResponse__Output } from '../../runtime/v1/AttachResponse';
import type { CheckpointContainerRequest as _runtime_v1_CheckpointContainerRequest, CheckpointContainerRequest__Output as _runtime_v1_CheckpointContainerRequest__Output } from '../../runtime/v1/CheckpointContainerRequest';
import type { CheckpointContainerResponse as _runtime_v1_CheckpointContainerResponse, CheckpointContainerResponse__Output as _runtime_v1_CheckpointContainerResponse__Output } from '../../runtime/v1/CheckpointContainerResponse';
import type { ContainerEventResponse as _runtime_v1_ContainerEventResponse, ContainerEventResponse__Output as _runtime_v1_ContainerEventResponse__Output } from '../../runtime/v1/ContainerEventResponse';
import type { ContainerStatsRequest as _runtime_v1_ContainerStatsRequest, ContainerStatsRequest__Output as _runtime_v1_ContainerStatsRequest__Output } from '../../runtime/v1/ContainerStatsRequest';
import type { ContainerStatsResponse as _runtime_v1_ContainerStatsResponse, ContainerStatsResponse__Output as _runtime_v1_ContainerStatsResponse__Output } from '../../runtime/v1/ContainerStatsResponse';
import type { ContainerStatusRequest as _runtime_v1_ContainerStatusRequest, ContainerStatusRequest__Output as _runtime_v1_ContainerStatusRequest__Output } from '../../runtime/v1/ContainerStatusRequest';
import type { ContainerStatusResponse as _runtime_v1_ContainerStatusResponse, ContainerStatusResponse__Output as _runtime_v1_ContainerStatusResponse__Output } from '../../runtime/v1/ContainerStatusResponse';
import type { CreateContainerRequest as _runtime_v1_CreateContainerRequest, CreateContainerRequest__Output as _runtime_v1_CreateContainerRequest__Output } from '../../runtime/v1/CreateContainerRequest';
import type { CreateContainerResponse as _runtime_v1_CreateContainerResponse, CreateContainerResponse__Output as _runtime_v1_CreateContainerResponse__Output } from '../../runtime/v1/CreateContainerResponse';
import type { ExecRequest as _runtime_v1_ExecRequest, ExecRequest__Output as _runtime_v1_ExecRequest__Output } from '../../runtime/v1/ExecRequest';
import type { ExecResponse as _runtime_v1_ExecResponse, ExecResponse__Output as _runtime_v1_ExecResponse__Output } from '../../runtime/v1/ExecResponse';
import type { ExecSyncRequest as _runtime_v1_ExecSyncRequest, ExecSyncRequest__Output as _runtime_v1_ExecSyncRequest__Output } from '../../runtime/v1/ExecSyncRequest';
import type { ExecSyncResponse as _runtime_v1_ExecSyncResponse, ExecSyncResponse__Output as _runtime_v1_ExecSyncResponse__Output } from '../../runtime/v1/ExecSyncResponse';
import type { GetEventsRequest as _runtime_v1_GetEventsRequest, GetEventsRequest__Output as _runtime_v1_GetEventsRequest__Output } from '../../runtime/v1/GetEventsRequest';
import type { ListContainerStatsRequest as _runtime_v1_ListContainerStatsRequest, ListContainerStatsRequest__Output as _runtime_v1_ListContainerStatsRequest__Output } from '../../runtime/v1/ListContainerStatsRequest';
import type { ListContainerStatsResponse as _runtime_v1_ListContainerStatsResponse, ListContainerStatsResponse__Output as _runtime_v1_ListContainerStatsResponse__Output } from '../../runtime/v1/ListContainerStatsResponse';
import type { ListContainersRequest as _runtime_v1_ListContainersRequest, ListContainersRequest__Output as _runtime_v1_ListContainersRequest__Output } from '../../runtime/v1/ListContainersRequest';
import type { ListContainersResponse as _runtime_v1_ListContainersResponse, ListContainersResponse__Output as _runtime_v1_ListContainersResponse__Output } from '../../runtime/v1/ListContainersResponse';
import type { ListMetricDescriptorsRequest as _runtime_v1_ListMetricDescriptorsRequest, ListMetricDescriptorsRequest__Output as _runtime_v1_ListMetricDescriptorsRequest__Output } from '../../runtime/v1/ListMetricDescriptorsRequest';
import type { ListMetricDescriptorsResponse as _runtime_v1_ListMetricDescriptorsResponse, ListMetricDescriptorsResponse__Output as _runtime_v1_ListMetricDescriptorsResponse__Output } from '../../runtime/v1/ListMetricDescriptorsResponse';
import type { ListPodSandboxMetricsRequest as _runtime_v1_ListPodSandboxMetricsRequest, ListPodSandboxMetricsRequest__Output as _runtime_v1_ListPodSandboxMetricsRequest__Output } from '../../runtime/v1/ListPodSandboxMetricsRequest';
import type { ListPodSandboxMetricsResponse as _runtime_v1_ListPodSandboxMetricsResponse, ListPodSandboxMetricsResponse__Output as _runtime_v1_ListPodSandboxMetricsResponse__Output } from '../../runtime/v1/ListPodSandboxMetricsResponse';
import type { ListPodSandboxRequest as _runtime_v1_ListPodSandboxRequest, ListPodSandboxRequest__Output as _runtime_v1_ListPodSandboxRequest__Output } from '../../runtime/v1/ListPodSandboxRequest';
import type { ListPodSandboxResponse as _runtime_v1_ListPodSandboxResponse, ListPodSandboxResponse__Output as _runtime_v1_ListPodSandboxResponse__Output } from '../../runtime/v1/ListPodSandboxResponse';
import type { ListPodSandboxStatsRequest as _runtime_v1_ListPodSandboxStatsRequest, ListPodSandboxStatsRequest__Output as _runtime_v1_ListPodSandboxStatsRequest__Output } from '../../runtime/v1/ListPodSandboxStatsRequest';
import type { ListPodSandboxStatsResponse as _runtime_v1_ListPodSandboxStatsResponse, ListPodSandboxStatsResponse__Output as _runtime_v1_ListPodSandboxStatsResponse__Output } from '../../runtime/v1/ListPodSandboxStatsResponse';
import type { PodSandboxStatsRequest as _runtime_v1_PodSandboxStatsRequest, PodSandboxStatsRequest__Output as _runtime_v1_PodSandboxStatsRequest__Output } from '../../runtime/v1/PodSandboxStatsRequest';
import type { PodSandboxStatsResponse as _runtime_v1_PodSandboxStatsResponse, PodSandboxStatsResponse__Output as _runtime_v1_PodSandboxStatsResponse__Output } from '../../runtime/v1/PodSandboxStatsResponse';
import type { PodSandboxStatusRequest as _runtime_v1_PodSandboxStatusRequest, PodSandboxStatusRequest__Output as _runtime_v1_PodSandboxStatusRequest__Output } from '../../runtime/v1/PodSandboxStatusRequest';
import type { PodSandboxStatusResponse as _runtime_v1_PodSandboxStatusResponse, PodSandboxStatusResponse__Output as _runtime_v1_PodSandboxStatusResponse__Output } from '../../runtime/v1/PodSandboxStatusResponse';
import type { PortForwardRequest as _runtime_v1_PortForwardRequest, PortForwardRequest__Output as _runtime_v1_PortForwardRequest__Output } from '../../runtime/v1/PortForwardRequest';
import type { PortForwardResponse as _runtime_v1_PortForwardResponse, PortForwardResponse__Output as _runtime_v1_PortForwardResponse__Output } from '../../runtime/v1/PortForwardResponse';
import type { RemoveContainerRequest as _runtime_v1_RemoveContainerRequest, RemoveContainerRequest__Output as _runtime_v1_RemoveContainerRequest__Output } from '../../runtime/v1/RemoveContainerRequest';
import type { RemoveContainerResponse as _runtime_v1_RemoveContainerResponse, RemoveContainerResponse__Output as _runtime_v1_RemoveContainerResponse__Output } from '../../runtime/v1/RemoveContainerResponse';
import type { RemovePodSandboxRequest as _runtime_v1_RemovePodSandboxRequest, RemovePodSandboxRequest__Output as _runtime_v1_RemovePodSandboxRequest__Output } from '../../runtime/v1/RemovePodSandboxRequest';
import type { RemovePodSandboxResponse as _runtime_v1_RemovePodSandboxResponse, RemovePodSandboxResponse__Output as _runtime_v1_RemovePodSandboxResponse__Output } from '../../runtime/v1/RemovePodSandboxResponse';
import type { ReopenContainerLogRequest as _runtime_v1_ReopenContainerLogRequest, ReopenContainerLogRequest__Output as _runtime_v1_ReopenContainerLogRequest__Output } from '../../runtime/v1/ReopenContainerLogRequest';
import type { ReopenContainerLogResponse as _runtime_v1_ReopenContainerLogResponse, ReopenContainerLogResponse__Output as _runtime_v1_ReopenContainerLogResponse__Output } from '../../runtime/v1/ReopenContainerLogResponse';
import type { RunPodSandboxRequest as _runtime_v1_RunPodSandboxRequest, RunPodSandboxRequest__Output as _runtime_v1_RunPodSandboxRequest__Output } from '../../runtime/v1/RunPodSandboxRequest';
import type { RunPodSandboxResponse as _runtime_v1_RunPodSandboxResponse, RunPodSandboxResponse__Output as _runtime_v1_RunPodSandboxResponse__Output } from '../../runtime/v1/RunPodSandboxResponse';
import type { RuntimeConfigRequest as _runtime_v1_RuntimeConfigRequest, RuntimeConfigRequest__Output as _runtime_v1_RuntimeConfigRequest__Output } from '../../runtime/v1/RuntimeConfigRequest';
import type { RuntimeConfigResponse as _runtime_v1_RuntimeConfigResponse, RuntimeConfigResponse__Output as _runtime_v1_RuntimeConfigResponse__Output } from '../../runtime/v1/RuntimeConfigResponse';
import type { StartContainerRequest as _runtime_v1_StartContainerRequest, StartContainerRequest__Output as _runtime_v1_StartContainerRequest__Output } from '../../runtime/v1/StartContainerRequest';
import type { StartContainerResponse as _runtime_v1_StartContainerResponse, StartContainerResponse__Output as _runtime_v1_StartContainerResponse__Output } from '../../runtime/v1/StartContainerResponse';
import type { StatusRequest as _runtime_v1_StatusRequest, StatusRequest__Output as _runtime_v1_StatusRequest__Output } from '../../runtime/v1/StatusRequest';
import type { StatusResponse as _runtime_v1_StatusResponse, StatusResponse__Output as _runtime_v1_StatusResponse__Output } from '../../runtime/v1/StatusResponse';
import type { StopContainerRequest as _runtime_v1_StopContainerRequest, StopContainerRequest__Output as _runtime_v1_StopContainerRequest__Output } from '../../runtime/v1/StopContainerRequest';
import type { StopContainerResponse as _runtime_v1_StopContainerResponse, StopContainerResponse__Output as _runtime_v1_StopContainerResponse__Output } from '../../runtime/v1/StopContainerResponse';
import type { StopPodSandboxRequest as _runtime_v1_StopPodSandboxRequest, StopPodSandboxRequest__Output as _runtime_v1_StopPodSandboxRequest__Output } from '../../runtime/v1/StopPodSandboxRequest';
import type { StopPodSandboxResponse as _runtime_v1_StopPodSandboxResponse, StopPodSandboxResponse__Output as _runtime_v1_StopPodSandboxResponse__Output } from '../../runtime/v1/StopPodSandboxResponse';
import type { UpdateContainerResourcesRequest as _runtime_v1_UpdateContainerResourcesRequest, UpdateContainerResourcesRequest__Output as _runtime_v1_UpdateContainerResourcesRequest__Output } from '../../runtime/v1/UpdateContainerResourcesRequest';
import type { UpdateContainerResourcesResponse as _runtime_v1_UpdateContainerResourcesResponse, UpdateContainerResourcesResponse__Output as _runtime_v1_UpdateContainerResourcesResponse__Output } from '../../runtime/v1/UpdateContainerResourcesResponse';
import type { UpdateRuntimeConfigRequest as _runtime_v1_UpdateRuntimeConfigRequest, UpdateRuntimeConfigRequest__Output as _runtime_v1_UpdateRuntimeConfigRequest__Output } from '../../runtime/v1/UpdateRuntimeConfigRequest';
import type { UpdateRuntimeConfigResponse as _runtime_v1_UpdateRuntimeConfigResponse, UpdateRuntimeConfigResponse__Output as _runtime_v1_UpdateRuntimeConfigResponse__Output } from '../../runtime/v1/UpdateRuntimeConfigResponse';
import type { VersionRequest as _runtime_v1_VersionRequest, VersionRequest__Output as _runtime_v1_VersionRequest__Output } from '../../runtime/v1/VersionRequest';
import type { VersionResponse as _runtime_v1_VersionResponse, VersionResponse__Output as _runtime_v1_VersionResponse__Output } from '../../runtime/v1/VersionResponse';

/**
 * Runtime service defines the public APIs for remote container runtimes
 */
export interface RuntimeServiceClient extends grpc.Client {
  /**
   * Attach prepares a streaming endpoint to attach to a running container.
   */
  Attach(argument: _runtime_v1_AttachRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_runtime_v1_AttachResponse__Output>): grpc.ClientUnaryCall;
  Attach(argument: _runtime_v1_AttachRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_runtime_v1_AttachResponse__Output>): grpc.ClientUnaryCall;
  Attach(argument: _runtime_v1_AttachRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_runtime_v1_AttachResponse__Output>): grpc.ClientUnaryCall;
  Attach(argument: _runtime_v1_AttachRequest, callback: grpc.requestCallback<_runtime_v1_AttachResponse__Output>): grpc.ClientUnaryCall;
  /**
   * Attach prepares a streaming endpoint to attach to a running container.
   */
  attach(argument: _runtime_v1_AttachRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_runtime_v1_AttachResponse__Output>): grpc.ClientUnaryCall;
  attach(argument: _runtime_v1_AttachRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_runtime_v1_AttachResponse__Output>): grpc.ClientUnaryCall;
  attach(argument: _runtime_v1_AttachRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_runtime_v1_AttachResponse__Output>): grpc.ClientUnaryCall;
  attach(argument: _runtime_v1_AttachRequest, callback: grpc.requestCallback<_runtime_v1_AttachResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * CheckpointContainer checkpoints a container
   */
  CheckpointContainer(argument: _runtime_v1_CheckpointContainerRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_runtime_v1_CheckpointContainerResponse__Output>): grpc.ClientUnaryCall;
  CheckpointContainer(argument: _runtime_v1_CheckpointContainerRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_runtime_v1_CheckpointContainerResponse__Output>): grpc.ClientUnaryCall;
  CheckpointContainer(argument: _runtime_v1_CheckpointContainerRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_runtime_v1_CheckpointContainerResponse__Output>): grpc.ClientUnaryCall;
  CheckpointContainer(argument: _runtime_v1_CheckpointContainerRequest, callback: grpc.requestCallback<_runtime_v1_CheckpointContainerResponse__Output>): grpc.ClientUnaryCall;
  /**
   * CheckpointContainer checkpoints a container
   */
  checkpointContainer(argument: _runtime_v1_CheckpointContainerRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_runtime_v1_CheckpointContainerResponse__Output>): grpc.ClientUnaryCall;
  checkpointContainer(argument: _runtime_v1_CheckpointContainerRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_runtime_v1_CheckpointContainerResponse__Output>): grpc.ClientUnaryCall;
  checkpointContainer(argument: _runtime_v1_CheckpointContainerRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_runtime_v1_CheckpointContainerResponse__Output>): grpc.ClientUnaryCall;
  checkpointContainer(argument: _runtime_v1_CheckpointContainerRequest, callback: grpc.requestCallback<_runtime_v1_CheckpointContainerResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * ContainerStats returns stats of the container. If the container does not
   * exist, the call returns an error.
   */
  ContainerStats(argument: _runtime_v1_ContainerStatsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_runtime_v1_ContainerStatsResponse__Output>): grpc.ClientUnaryCall;
  ContainerStats(argument: _runtime_v1_ContainerStatsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_runtime_v1_ContainerStatsResponse__Output>): grpc.ClientUnaryCall;
  ContainerStats(argument: _runtime_v1_ContainerStatsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_runtime_v1_ContainerStatsResponse__Output>): grpc.ClientUnaryCall;
  ContainerStats(argument: _runtime_v1_ContainerStatsRequest, callback: grpc.requestCallback<_runtime_v1_ContainerStatsResponse__Output>): grpc.ClientUnaryCall;
  /**
   * ContainerStats returns stats of the container. If the container does not
   * exist, the call returns an error.
   */
  containerStats(argument: _runtime_v1_ContainerStatsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_runtime_v1_ContainerStatsResponse__Output>): grpc.ClientUnaryCall;
  containerStats(argument: _runtime_v1_ContainerStatsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_runtime_v1_ContainerStatsResponse__Output>): grpc.ClientUnaryCall;
  containerStats(argument: _runtime_v1_ContainerStatsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_runtime_v1_ContainerStatsResponse__Output>): grpc.ClientUnaryCall;
  containerStats(argument: _runtime_v1_ContainerStatsRequest, callback: grpc.requestCallback<_runtime_v1_ContainerStatsResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * ContainerStatus returns status of the container. If the container is not
   * present, returns an error.
   */
  ContainerStatus(argument: _runtime_v1_ContainerStatusRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_runtime_v1_ContainerStatusResponse__Output>): grpc.ClientUnaryCall;
  ContainerStatus(argument: _runtime_v1_ContainerStatusRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_runtime_v1_ContainerStatusResponse__Output>): grpc.ClientUnaryCall;
  ContainerStatus(argument: _runtime_v1_ContainerStatusRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_runtime_v1_ContainerStatusResponse__Output>): grpc.ClientUnaryCall;
  ContainerStatus(argument: _runtime_v1_ContainerStatusRequest, callback: grpc.requestCallback<_runtime_v1_ContainerStatusResponse__Output>): grpc.ClientUnaryCall;
  /**
   * ContainerStatus returns status of the container. If the container is not
   * present, returns an error.
   */
  containerStatus(argument: _runtime_v1_ContainerStatusRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_runtime_v1_ContainerStatusResponse__Output>): grpc.ClientUnaryCall;
  containerStatus(argument: _runtime_v1_ContainerStatusRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_runtime_v1_ContainerStatusResponse__Output>): grpc.ClientUnaryCall;
  containerStatus(argument: _runtime_v1_ContainerStatusRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_runtime_v1_ContainerStatusResponse__Output>): grpc.ClientUnaryCall;
  containerStatus(argument: _runtime_v1_ContainerStatusRequest, callback: grpc.requestCallback<_runtime_v1_ContainerStatusResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * CreateContainer creates a new container in specified PodSandbox
   */
  CreateContainer(argument: _runtime_v1_CreateContainerRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_runtime_v1_CreateContainerResponse__Output>): grpc.ClientUnaryCall;
  CreateContainer(argument: _runtime_v1_CreateContainerRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_runtime_v1_CreateContainerResponse__Output>): grpc.ClientUnaryCall;
  CreateContainer(argument: _runtime_v1_CreateContainerRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_runtime_v1_CreateContainerResponse__Output>): grpc.ClientUnaryCall;
  CreateContainer(argument: _runtime_v1_CreateContainerRequest, callback: grpc.requestCallback<_runtime_v1_CreateContainerResponse__Output>): grpc.ClientUnaryCall;
  /**
   * CreateContainer creates a new container in specified PodSandbox
   */
  createContainer(argument: _runtime_v1_CreateContainerRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_runtime_v1_CreateContainerResponse__Output>): grpc.ClientUnaryCall;
  createContainer(argument: _runtime_v1_CreateContainerRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_runtime_v1_CreateContainerResponse__Output>): grpc.ClientUnaryCall;
  createContainer(argument: _runtime_v1_CreateContainerRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_runtime_v1_CreateContainerResponse__Output>): grpc.ClientUnaryCall;
  createContainer(argument: _runtime_v1_CreateContainerRequest, callback: grpc.requestCallback<_runtime_v1_CreateContainerResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * Exec prepares a streaming endpoint to execute a command in the container.
   */
  Exec(argument: _runtime_v1_ExecRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_runtime_v1_ExecResponse__Output>): grpc.ClientUnaryCall;
  Exec(argument: _runtime_v1_ExecRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_runtime_v1_ExecResponse__Output>): grpc.ClientUnaryCall;
  Exec(argument: _runtime_v1_ExecRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_runtime_v1_ExecResponse__Output>): grpc.ClientUnaryCall;
  Exec(argument: _runtime_v1_ExecRequest, callback: grpc.requestCallback<_runtime_v1_ExecResponse__Output>): grpc.ClientUnaryCall;
  /**
   * Exec prepares a streaming endpoint to execute a command in the container.
   */
  exec(argument: _runtime_v1_ExecRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_runtime_v1_ExecResponse__Output>): grpc.ClientUnaryCall;
  exec(argument: _runtime_v1_ExecRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_runtime_v1_ExecResponse__Output>): grpc.ClientUnaryCall;
  exec(argument: _runtime_v1_ExecRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_runtime_v1_ExecResponse__Output>): grpc.ClientUnaryCall;
  exec(argument: _runtime_v1_ExecRequest, callback: grpc.requestCallback<_runtime_v1_ExecResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * ExecSync runs a command in a container synchronously.
   */
  ExecSync(argument: _runtime_v1_ExecSyncRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_runtime_v1_ExecSyncResponse__Output>): grpc.ClientUnaryCall;
  ExecSync(argument: _runtime_v1_ExecSyncRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_runtime_v1_ExecSyncResponse__Output>): grpc.ClientUnaryCall;
  ExecSync(argument: _runtime_v1_ExecSyncRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_runtime_v1_ExecSyncResponse__Output>): grpc.ClientUnaryCall;
  ExecSync(argument: _runtime_v1_ExecSyncRequest, callback: grpc.requestCallback<_runtime_v1_ExecSyncResponse__Output>): grpc.ClientUnaryCall;
  /**
   * ExecSync runs a command in a container synchronously.
   */
  execSync(argument: _runtime_v1_ExecSyncRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_runtime_v1_ExecSyncResponse__Output>): grpc.ClientUnaryCall;
  execSync(argument: _runtime_v1_ExecSyncRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_runtime_v1_ExecSyncResponse__Output>): grpc.ClientUnaryCall;
  execSync(argument: _runtime_v1_ExecSyncRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_runtime_v1_ExecSyncResponse__Output>): grpc.ClientUnaryCall;
  execSync(argument: _runtime_v1_ExecSyncRequest, callback: grpc.requestCallback<_runtime_v1_ExecSyncResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * GetContainerEvents gets container events from the CRI runtime
   */
  GetContainerEvents(argument: _runtime_v1_GetEventsRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_runtime_v1_ContainerEventResponse__Output>;
  GetContainerEvents(argument: _runtime_v1_GetEventsRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_runtime_v1_ContainerEventResponse__Output>;
  /**
   * GetContainerEvents gets container events from the CRI runtime
   */
  getContainerEvents(argument: _runtime_v1_GetEventsRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_runtime_v1_ContainerEventResponse__Output>;
  getContainerEvents(argument: _runtime_v1_GetEventsRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_runtime_v1_ContainerEventResponse__Output>;
  
  /**
   * ListContainerStats returns stats of all running containers.
   */
  ListContainerStats(argument: _runtime_v1_ListContainerStatsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_runtime_v1_ListContainerStatsResponse__Output>): grpc.ClientUnaryCall;
  ListContainerStats(argument: _runtime_v1_ListContainerStatsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_runtime_v1_ListContainerStatsResponse__Output>): grpc.ClientUnaryCall;
  ListContainerStats(argument: _runtime_v1_ListContainerStatsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_runtime_v1_ListContainerStatsResponse__Output>): grpc.ClientUnaryCall;
  ListContainerStats(argument: _runtime_v1_ListContainerStatsRequest, callback: grpc.requestCallback<_runtime_v1_ListContainerStatsResponse__Output>): grpc.ClientUnaryCall;
  /**
   * ListContainerStats returns stats of all running containers.
   */
  listContainerStats(argument: _runtime_v1_ListContainerStatsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_runtime_v1_ListContainerStatsResponse__Output>): grpc.ClientUnaryCall;
  listContainerStats(argument: _runtime_v1_ListContainerStatsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_runtime_v1_ListContainerStatsResponse__Output>): grpc.ClientUnaryCall;
  listContainerStats(argument: _runtime_v1_ListContainerStatsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_runtime_v1_ListContainerStatsResponse__Output>): grpc.ClientUnaryCall;
  listContainerStats(argument: _runtime_v1_ListContainerStatsRequest, callback: grpc.requestCallback<_runtime_v1_ListContainerStatsResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * ListContainers lists all containers by filters.
   */
  ListContainers(argument: _runtime_v1_ListContainersRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_runtime_v1_ListContainersResponse__Output>): grpc.ClientUnaryCall;
  ListContainers(argument: _runtime_v1_ListContainersRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_runtime_v1_ListContainersResponse__Output>): grpc.ClientUnaryCall;
  ListContainers(argument: _runtime_v1_ListContainersRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_runtime_v1_ListContainersResponse__Output>): grpc.ClientUnaryCall;
  ListContainers(argument: _runtime_v1_ListContainersRequest, callback: grpc.requestCallback<_runtime_v1_ListContainersResponse__Output>): grpc.ClientUnaryCall;
  /**
   * ListContainers lists all containers by filters.
   */
  listContainers(argument: _runtime_v1_ListContainersRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_runtime_v1_ListContainersResponse__Output>): grpc.ClientUnaryCall;
  listContainers(argument: _runtime_v1_ListContainersRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_runtime_v1_ListContainersResponse__Output>): grpc.ClientUnaryCall;
  listContainers(argument: _runtime_v1_ListContainersRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_runtime_v1_ListContainersResponse__Output>): grpc.ClientUnaryCall;
  listContainers(argument: _runtime_v1_ListContainersRequest, callback: grpc.requestCallback<_runtime_v1_ListContainersResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * ListMetricDescriptors gets the descriptors for the metrics that will be returned in ListPodSandboxMetrics.
   * This list should be static at startup: either the client and server restart together when
   * adding or removing metrics descriptors, or they should not change.
   * Put differently, if ListPodSandboxMetrics references a name that is not described in the initial
   * ListMetricDescriptors call, then the metric will not be broadcasted.
   */
  ListMetricDescriptors(argument: _runtime_v1_ListMetricDescriptorsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_runtime_v1_ListMetricDescriptorsResponse__Output>): grpc.ClientUnaryCall;
  ListMetricDescriptors(argument: _runtime_v1_ListMetricDescriptorsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_runtime_v1_ListMetricDescriptorsResponse__Output>): grpc.ClientUnaryCall;
  ListMetricDescriptors(argument: _runtime_v1_ListMetricDescriptorsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_runtime_v1_ListMetricDescriptorsResponse__Output>): grpc.ClientUnaryCall;
  ListMetricDescriptors(argument: _runtime_v1_ListMetricDescriptorsRequest, callback: grpc.requestCallback<_runtime_v1_ListMetricDescriptorsResponse__Output>): grpc.ClientUnaryCall;
  /**
   * ListMetricDescriptors gets the descriptors for the metrics that will be returned in ListPodSandboxMetrics.
   * This list should be static at startup: either the client and server restart together when
   * adding or removing metrics descriptors, or they should not change.
   * Put differently, if ListPodSandboxMetrics references a name that is not described in the initial
   * ListMetricDescriptors call, then the metric will not be broadcasted.
   */
  listMetricDescriptors(argument: _runtime_v1_ListMetricDescriptorsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_runtime_v1_ListMetricDescriptorsResponse__Output>): grpc.ClientUnaryCall;
  listMetricDescriptors(argument: _runtime_v1_ListMetricDescriptorsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_runtime_v1_ListMetricDescriptorsResponse__Output>): grpc.ClientUnaryCall;
  listMetricDescriptors(argument: _runtime_v1_ListMetricDescriptorsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_runtime_v1_ListMetricDescriptorsResponse__Output>): grpc.ClientUnaryCall;
  listMetricDescriptors(argument: _runtime_v1_ListMetricDescriptorsRequest, callback: grpc.requestCallback<_runtime_v1_ListMetricDescriptorsResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * ListPodSandbox returns a list of PodSandboxes.
   */
  ListPodSandbox(argument: _runtime_v1_ListPodSandboxRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_runtime_v1_ListPodSandboxResponse__Output>): grpc.ClientUnaryCall;
  ListPodSandbox(argument: _runtime_v1_ListPodSandboxRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_runtime_v1_ListPodSandboxResponse__Output>): grpc.ClientUnaryCall;
  ListPodSandbox(argument: _runtime_v1_ListPodSandboxRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_runtime_v1_ListPodSandboxResponse__Output>): grpc.ClientUnaryCall;
  ListPodSandbox(argument: _runtime_v1_ListPodSandboxRequest, callback: grpc.requestCallback<_runtime_v1_ListPodSandboxResponse__Output>): grpc.ClientUnaryCall;
  /**
   * ListPodSandbox returns a list of PodSandboxes.
   */
  listPodSandbox(argument: _runtime_v1_ListPodSandboxRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_runtime_v1_ListPodSandboxResponse__Output>): grpc.ClientUnaryCall;
  listPodSandbox(argument: _runtime_v1_ListPodSandboxRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_runtime_v1_ListPodSandboxResponse__Output>): grpc.ClientUnaryCall;
  listPodSandbox(argument: _runtime_v1_ListPodSandboxRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_runtime_v1_ListPodSandboxResponse__Output>): grpc.ClientUnaryCall;
  listPodSandbox(argument: _runtime_v1_ListPodSandboxRequest, callback: grpc.requestCallback<_runtime_v1_ListPodSandboxResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * ListPodSandboxMetrics gets pod sandbox metrics from CRI Runtime
   */
  ListPodSandboxMetrics(argument: _runtime_v1_ListPodSandboxMetricsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_runtime_v1_ListPodSandboxMetricsResponse__Output>): grpc.ClientUnaryCall;
  ListPodSandboxMetrics(argument: _runtime_v1_ListPodSandboxMetricsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_runtime_v1_ListPodSandboxMetricsResponse__Output>): grpc.ClientUnaryCall;
  ListPodSandboxMetrics(argument: _runtime_v1_ListPodSandboxMetricsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_runtime_v1_ListPodSandboxMetricsResponse__Output>): grpc.ClientUnaryCall;
  ListPodSandboxMetrics(argument: _runtime_v1_ListPodSandboxMetricsRequest, callback: grpc.requestCallback<_runtime_v1_ListPodSandboxMetricsResponse__Output>): grpc.ClientUnaryCall;
  /**
   * ListPodSandboxMetrics gets pod sandbox metrics from CRI Runtime
   */
  listPodSandboxMetrics(argument: _runtime_v1_ListPodSandboxMetricsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_runtime_v1_ListPodSandboxMetricsResponse__Output>): grpc.ClientUnaryCall;
  listPodSandboxMetrics(argument: _runtime_v1_ListPodSandboxMetricsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_runtime_v1_ListPodSandboxMetricsResponse__Output>): grpc.ClientUnaryCall;
  listPodSandboxMetrics(argument: _runtime_v1_ListPodSandboxMetricsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_runtime_v1_ListPodSandboxMetricsResponse__Output>): grpc.ClientUnaryCall;
  listPodSandboxMetrics(argument: _runtime_v1_ListPodSandboxMetricsRequest, callback: grpc.requestCallback<_runtime_v1_ListPodSandboxMetricsResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * ListPodSandboxStats returns stats of the pod sandboxes matching a filter.
   */
  ListPodSandboxStats(argument: _runtime_v1_ListPodSandboxStatsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_runtime_v1_ListPodSandboxStatsResponse__Output>): grpc.ClientUnaryCall;
  ListPodSandboxStats(argument: _runtime_v1_ListPodSandboxStatsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_runtime_v1_ListPodSandboxStatsResponse__Output>): grpc.ClientUnaryCall;
  ListPodSandboxStats(argument: _runtime_v1_ListPodSandboxStatsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_runtime_v1_ListPodSandboxStatsResponse__Output>): grpc.ClientUnaryCall;
  ListPodSandboxStats(argument: _runtime_v1_ListPodSandboxStatsRequest, callback: grpc.requestCallback<_runtime_v1_ListPodSandboxStatsResponse__Output>): grpc.ClientUnaryCall;
  /**
   * ListPodSandboxStats returns stats of the pod sandboxes matching a filter.
   */
  listPodSandboxStats(argument: _runtime_v1_ListPodSandboxStatsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_runtime_v1_ListPodSandboxStatsResponse__Output>): grpc.ClientUnaryCall;
  listPodSandboxStats(argument: _runtime_v1_ListPodSandboxStatsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_runtime_v1_ListPodSandboxStatsResponse__Output>): grpc.ClientUnaryCall;
  listPodSandboxStats(argument: _runtime_v1_ListPodSandboxStatsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_runtime_v1_ListPodSandboxStatsResponse__Output>): grpc.ClientUnaryCall;
  listPodSandboxStats(argument: _runtime_v1_ListPodSandboxStatsRequest, callback: grpc.requestCallback<_runtime_v1_ListPodSandboxStatsResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * PodSandboxStats returns stats of the pod sandbox. If the pod sandbox does not
   * exist, the call returns an error.
   */
  PodSandboxStats(argument: _runtime_v1_PodSandboxStatsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_runtime_v1_PodSandboxStatsResponse__Output>): grpc.ClientUnaryCall;
  PodSandboxStats(argument: _runtime_v1_PodSandboxStatsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_runtime_v1_PodSandboxStatsResponse__Output>): grpc.ClientUnaryCall;
  PodSandboxStats(argument: _runtime_v1_PodSandboxStatsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_runtime_v1_PodSandboxStatsResponse__Output>): grpc.ClientUnaryCall;
  PodSandboxStats(argument: _runtime_v1_PodSandboxStatsRequest, callback: grpc.requestCallback<_runtime_v1_PodSandboxStatsResponse__Output>): grpc.ClientUnaryCall;
  /**
   * PodSandboxStats returns stats of the pod sandbox. If the pod sandbox does not
   * exist, the call returns an error.
   */
  podSandboxStats(argument: _runtime_v1_PodSandboxStatsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_runtime_v1_PodSandboxStatsResponse__Output>): grpc.ClientUnaryCall;
  podSandboxStats(argument: _runtime_v1_PodSandboxStatsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_runtime_v1_PodSandboxStatsResponse__Output>): grpc.ClientUnaryCall;
  podSandboxStats(argument: _runtime_v1_PodSandboxStatsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_runtime_v1_PodSandboxStatsResponse__Output>): grpc.ClientUnaryCall;
  podSandboxStats(argument: _runtime_v1_PodSandboxStatsRequest, callback: grpc.requestCallback<_runtime_v1_PodSandboxStatsResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * PodSandboxStatus returns the status of the PodSandbox. If the PodSandbox is not
   * present, returns an error.
   */
  PodSandboxStatus(argument: _runtime_v1_PodSandboxStatusRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_runtime_v1_PodSandboxStatusResponse__Output>): grpc.ClientUnaryCall;
  PodSandboxStatus(argument: _runtime_v1_PodSandboxStatusRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_runtime_v1_PodSandboxStatusResponse__Output>): grpc.ClientUnaryCall;
  PodSandboxStatus(argument: _runtime_v1_PodSandboxStatusRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_runtime_v1_PodSandboxStatusResponse__Output>): grpc.ClientUnaryCall;
  PodSandboxStatus(argument: _runtime_v1_PodSandboxStatusRequest, callback: grpc.requestCallback<_runtime_v1_PodSandboxStatusResponse__Output>): grpc.ClientUnaryCall;
  /**
   * PodSandboxStatus returns the status of the PodSandbox. If the PodSandbox is not
   * present, returns an error.
   */
  podSandboxStatus(argument: _runtime_v1_PodSandboxStatusRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_runtime_v1_PodSandboxStatusResponse__Output>): grpc.ClientUnaryCall;
  podSandboxStatus(argument: _runtime_v1_PodSandboxStatusRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_runtime_v1_PodSandboxStatusResponse__Output>): grpc.ClientUnaryCall;
  podSandboxStatus(argument: _runtime_v1_PodSandboxStatusRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_runtime_v1_PodSandboxStatusResponse__Output>): grpc.ClientUnaryCall;
  podSandboxStatus(argument: _runtime_v1_PodSandboxStatusRequest, callback: grpc.requestCallback<_runtime_v1_PodSandboxStatusResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * PortForward prepares a streaming endpoint to forward ports from a PodSandbox.
   */
  PortForward(argument: _runtime_v1_PortForwardRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_runtime_v1_PortForwardResponse__Output>): grpc.ClientUnaryCall;
  PortForward(argument: _runtime_v1_PortForwardRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_runtime_v1_PortForwardResponse__Output>): grpc.ClientUnaryCall;
  PortForward(argument: _runtime_v1_PortForwardRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_runtime_v1_PortForwardResponse__Output>): grpc.ClientUnaryCall;
  PortForward(argument: _runtime_v1_PortForwardRequest, callback: grpc.requestCallback<_runtime_v1_PortForwardResponse__Output>): grpc.ClientUnaryCall;
  /**
   * PortForward prepares a streaming endpoint to forward ports from a PodSandbox.
   */
  portForward(argument: _runtime_v1_PortForwardRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_runtime_v1_PortForwardResponse__Output>): grpc.ClientUnaryCall;
  portForward(argument: _runtime_v1_PortForwardRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_runtime_v1_PortForwardResponse__Output>): grpc.ClientUnaryCall;
  portForward(argument: _runtime_v1_PortForwardRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_runtime_v1_PortForwardResponse__Output>): grpc.ClientUnaryCall;
  portForward(argument: _runtime_v1_PortForwardRequest, callback: grpc.requestCallback<_runtime_v1_PortForwardResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * RemoveContainer removes the container. If the container is running, the
   * container must be forcibly removed.
   * This call is idempotent, and must not return an error if the container has
   * already been removed.
   */
  RemoveContainer(argument: _runtime_v1_RemoveContainerRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_runtime_v1_RemoveContainerResponse__Output>): grpc.ClientUnaryCall;
  RemoveContainer(argument: _runtime_v1_RemoveContainerRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_runtime_v1_RemoveContainerResponse__Output>): grpc.ClientUnaryCall;
  RemoveContainer(argument: _runtime_v1_RemoveContainerRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_runtime_v1_RemoveContainerResponse__Output>): grpc.ClientUnaryCall;
  RemoveContainer(argument: _runtime_v1_RemoveContainerRequest, callback: grpc.requestCallback<_runtime_v1_RemoveContainerResponse__Output>): grpc.ClientUnaryCall;
  /**
   * RemoveContainer removes the container. If the container is running, the
   * container must be forcibly removed.
   * This call is idempotent, and must not return an error if the container has
   * already been removed.
   */
  removeContainer(argument: _runtime_v1_RemoveContainerRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_runtime_v1_RemoveContainerResponse__Output>): grpc.ClientUnaryCall;
  removeContainer(argument: _runtime_v1_RemoveContainerRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_runtime_v1_RemoveContainerResponse__Output>): grpc.ClientUnaryCall;
  removeContainer(argument: _runtime_v1_RemoveContainerRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_runtime_v1_RemoveContainerResponse__Output>): grpc.ClientUnaryCall;
  removeContainer(argument: _runtime_v1_RemoveContainerRequest, callback: grpc.requestCallback<_runtime_v1_RemoveContainerResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * RemovePodSandbox removes the sandbox. If there are any running containers
   * in the sandbox, they must be forcibly terminated and removed.
   * This call is idempotent, and must not return an error if the sandbox has
   * already been removed.
   */
  RemovePodSandbox(argument: _runtime_v1_RemovePodSandboxRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_runtime_v1_RemovePodSandboxResponse__Output>): grpc.ClientUnaryCall;
  RemovePodSandbox(argument: _runtime_v1_RemovePodSandboxRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_runtime_v1_RemovePodSandboxResponse__Output>): grpc.ClientUnaryCall;
  RemovePodSandbox(argument: _runtime_v1_RemovePodSandboxRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_runtime_v1_RemovePodSandboxResponse__Output>): grpc.ClientUnaryCall;
  RemovePodSandbox(argument: _runtime_v1_RemovePodSandboxRequest, callback: grpc.requestCallback<_runtime_v1_RemovePodSandboxResponse__Output>): grpc.ClientUnaryCall;
  /**
   * RemovePodSandbox removes the sandbox. If there are any running containers
   * in the sandbox, they must be forcibly terminated and removed.
   * This call is idempotent, and must not return an error if the sandbox has
   * already been removed.
   */
  removePodSandbox(argument: _runtime_v1_RemovePodSandboxRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_runtime_v1_RemovePodSandboxResponse__Output>): grpc.ClientUnaryCall;
  removePodSandbox(argument: _runtime_v1_RemovePodSandboxRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_runtime_v1_RemovePodSandboxResponse__Output>): grpc.ClientUnaryCall;
  removePodSandbox(argument: _runtime_v1_RemovePodSandboxRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_runtime_v1_RemovePodSandboxResponse__Output>): grpc.ClientUnaryCall;
  removePodSandbox(argument: _runtime_v1_RemovePodSandboxRequest, callback: grpc.requestCallback<_runtime_v1_RemovePodSandboxResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * ReopenContainerLog asks runtime to reopen the stdout/stderr log file
   * for the container. This is often called after the log file has been
   * rotated. If the container is not running, container runtime can choose
   * to either create a new log file and return nil, or return an error.
   * Once it returns error, new container log file MUST NOT be created.
   */
  ReopenContainerLog(argument: _runtime_v1_ReopenContainerLogRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_runtime_v1_ReopenContainerLogResponse__Output>): grpc.ClientUnaryCall;
  ReopenContainerLog(argument: _runtime_v1_ReopenContainerLogRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_runtime_v1_ReopenContainerLogResponse__Output>): grpc.ClientUnaryCall;
  ReopenContainerLog(argument: _runtime_v1_ReopenContainerLogRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_runtime_v1_ReopenContainerLogResponse__Output>): grpc.ClientUnaryCall;
  ReopenContainerLog(argument: _runtime_v1_ReopenContainerLogRequest, callback: grpc.requestCallback<_runtime_v1_ReopenContainerLogResponse__Output>): grpc.ClientUnaryCall;
  /**
   * ReopenContainerLog asks runtime to reopen the stdout/stderr log file
   * for the container. This is often called after the log file has been
   * rotated. If the container is not running, container runtime can choose
   * to either create a new log file and return nil, or return an error.
   * Once it returns error, new container log file MUST NOT be created.
   */
  reopenContainerLog(argument: _runtime_v1_ReopenContainerLogRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_runtime_v1_ReopenContainerLogResponse__Output>): grpc.ClientUnaryCall;
  reopenContainerLog(argument: _runtime_v1_ReopenContainerLogRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_runtime_v1_ReopenContainerLogResponse__Output>): grpc.ClientUnaryCall;
  reopenContainerLog(argument: _runtime_v1_ReopenContainerLogRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_runtime_v1_ReopenContainerLogResponse__Output>): grpc.ClientUnaryCall;
  reopenContainerLog(argument: _runtime_v1_ReopenContainerLogRequest, callback: grpc.requestCallback<_runtime_v1_ReopenContainerLogResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * RunPodSandbox creates and starts a pod-level sandbox. Runtimes must ensure
   * the sandbox is in the ready state on success.
   */
  RunPodSandbox(argument: _runtime_v1_RunPodSandboxRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_runtime_v1_RunPodSandboxResponse__Output>): grpc.ClientUnaryCall;
  RunPodSandbox(argument: _runtime_v1_RunPodSandboxRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_runtime_v1_RunPodSandboxResponse__Output>): grpc.ClientUnaryCall;
  RunPodSandbox(argument: _runtime_v1_RunPodSandboxRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_runtime_v1_RunPodSandboxResponse__Output>): grpc.ClientUnaryCall;
  RunPodSandbox(argument: _runtime_v1_RunPodSandboxRequest, callback: grpc.requestCallback<_runtime_v1_RunPodSandboxResponse__Output>): grpc.ClientUnaryCall;
  /**
   * RunPodSandbox creates and starts a pod-level sandbox. Runtimes must ensure
   * the sandbox is in the ready state on success.
   */
  runPodSandbox(argument: _runtime_v1_RunPodSandboxRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_runtime_v1_RunPodSandboxResponse__Output>): grpc.ClientUnaryCall;
  runPodSandbox(argument: _runtime_v1_RunPodSandboxRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_runtime_v1_RunPodSandboxResponse__Output>): grpc.ClientUnaryCall;
  runPodSandbox(argument: _runtime_v1_RunPodSandboxRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_runtime_v1_RunPodSandboxResponse__Output>): grpc.ClientUnaryCall;
  runPodSandbox(argument: _runtime_v1_RunPodSandboxRequest, callback: grpc.requestCallback<_runtime_v1_RunPodSandboxResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * RuntimeConfig returns configuration information of the runtime.
   * A couple of notes:
   * - The RuntimeConfigRequest object is not to be confused with the contents of UpdateRuntimeConfigRequest.
   * The former is for having runtime tell Kubelet what to do, the latter vice versa.
   * - It is the expectation of the Kubelet that these fields are static for the lifecycle of the Kubelet.
   * The Kubelet will not re-request the RuntimeConfiguration after startup, and CRI implementations should
   * avoid updating them without a full node reboot.
   */
  RuntimeConfig(argument: _runtime_v1_RuntimeConfigRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_runtime_v1_RuntimeConfigResponse__Output>): grpc.ClientUnaryCall;
  RuntimeConfig(argument: _runtime_v1_RuntimeConfigRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_runtime_v1_RuntimeConfigResponse__Output>): grpc.ClientUnaryCall;
  RuntimeConfig(argument: _runtime_v1_RuntimeConfigRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_runtime_v1_RuntimeConfigResponse__Output>): grpc.ClientUnaryCall;
  RuntimeConfig(argument: _runtime_v1_RuntimeConfigRequest, callback: grpc.requestCallback<_runtime_v1_RuntimeConfigResponse__Output>): grpc.ClientUnaryCall;
  /**
   * RuntimeConfig returns configuration information of the runtime.
   * A couple of notes:
   * - The RuntimeConfigRequest object is not to be confused with the contents of UpdateRuntimeConfigRequest.
   * The former is for having runtime tell Kubelet what to do, the latter vice versa.
   * - It is the expectation of the Kubelet that these fields are static for the lifecycle of the Kubelet.
   * The Kubelet will not re-request the RuntimeConfiguration after startup, and CRI implementations should
   * avoid updating them without a full node reboot.
   */
  runtimeConfig(argument: _runtime_v1_RuntimeConfigRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_runtime_v1_RuntimeConfigResponse__Output>): grpc.ClientUnaryCall;
  runtimeConfig(argument: _runtime_v1_RuntimeConfigRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_runtime_v1_RuntimeConfigResponse__Output>): grpc.ClientUnaryCall;
  runtimeConfig(argument: _runtime_v1_RuntimeConfigRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_runtime_v1_RuntimeConfigResponse__Output>): grpc.ClientUnaryCall;
  runtimeConfig(argument: _runtime_v1_RuntimeConfigRequest, callback: grpc.requestCallback<_runtime_v1_RuntimeConfigResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * StartContainer starts the container.
   */
  StartContainer(argument: _runtime_v1_StartContainerRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_runtime_v1_StartContainerResponse__Output>): grpc.ClientUnaryCall;
  StartContainer(argument: _runtime_v1_StartContainerRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_runtime_v1_StartContainerResponse__Output>): grpc.ClientUnaryCall;
  StartContainer(argument: _runtime_v1_StartContainerRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_runtime_v1_StartContainerResponse__Output>): grpc.ClientUnaryCall;
  StartContainer(argument: _runtime_v1_StartContainerRequest, callback: grpc.requestCallback<_runtime_v1_StartContainerResponse__Output>): grpc.ClientUnaryCall;
  /**
   * StartContainer starts the container.
   */
  startContainer(argument: _runtime_v1_StartContainerRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_runtime_v1_StartContainerResponse__Output>): grpc.ClientUnaryCall;
  startContainer(argument: _runtime_v1_StartContainerRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_runtime_v1_StartContainerResponse__Output>): grpc.ClientUnaryCall;
  startContainer(argument: _runtime_v1_StartContainerRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_runtime_v1_StartContainerResponse__Output>): grpc.ClientUnaryCall;
  startContainer(argument: _runtime_v1_StartContainerRequest, callback: grpc.requestCallback<_runtime_v1_StartContainerResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * Status returns the status of the runtime.
   */
  Status(argument: _runtime_v1_StatusRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_runtime_v1_StatusResponse__Output>): grpc.ClientUnaryCall;
  Status(argument: _runtime_v1_StatusRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_runtime_v1_StatusResponse__Output>): grpc.ClientUnaryCall;
  Status(argument: _runtime_v1_StatusRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_runtime_v1_StatusResponse__Output>): grpc.ClientUnaryCall;
  Status(argument: _runtime_v1_StatusRequest, callback: grpc.requestCallback<_runtime_v1_StatusResponse__Output>): grpc.ClientUnaryCall;
  /**
   * Status returns the status of the runtime.
   */
  status(argument: _runtime_v1_StatusRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_runtime_v1_StatusResponse__Output>): grpc.ClientUnaryCall;
  status(argument: _runtime_v1_StatusRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_runtime_v1_StatusResponse__Output>): grpc.ClientUnaryCall;
  status(argument: _runtime_v1_StatusRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_runtime_v1_StatusResponse__Output>): grpc.ClientUnaryCall;
  status(argument: _runtime_v1_StatusRequest, callback: grpc.requestCallback<_runtime_v1_StatusResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * StopContainer stops a running container with a grace period (i.e., timeout).
   * This call is idempotent, and must not return an error if the container has
   * already been stopped.
   * The runtime must forcibly kill the container after the grace period is
   * reached.
   */
  StopContainer(argument: _runtime_v1_StopContainerRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_runtime_v1_StopContainerResponse__Output>): grpc.ClientUnaryCall;
  StopContainer(argument: _runtime_v1_StopContainerRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_runtime_v1_StopContainerResponse__Output>): grpc.ClientUnaryCall;
  StopContainer(argument: _runtime_v1_StopContainerRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_runtime_v1_StopContainerResponse__Output>): grpc.ClientUnaryCall;
  StopContainer(argument: _runtime_v1_StopContainerRequest, callback: grpc.requestCallback<_runtime_v1_StopContainerResponse__Output>): grpc.ClientUnaryCall;
  /**
   * StopContainer stops a running container with a grace period (i.e., timeout).
   * This call is idempotent, and must not return an error if the container has
   * already been stopped.
   * The runtime must forcibly kill the container after the grace period is
   * reached.
   */
  stopContainer(argument: _runtime_v1_StopContainerRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_runtime_v1_StopContainerResponse__Output>): grpc.ClientUnaryCall;
  stopContainer(argument: _runtime_v1_StopContainerRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_runtime_v1_StopContainerResponse__Output>): grpc.ClientUnaryCall;
  stopContainer(argument: _runtime_v1_StopContainerRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_runtime_v1_StopContainerResponse__Output>): grpc.ClientUnaryCall;
  stopContainer(argument: _runtime_v1_StopContainerRequest, callback: grpc.requestCallback<_runtime_v1_StopContainerResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * StopPodSandbox stops any running process that is part of the sandbox and
   * reclaims network resources (e.g., IP addresses) allocated to the sandbox.
   * If there are any running containers in the sandbox, they must be forcibly
   * terminated.
   * This call is idempotent, and must not return an error if all relevant
   * resources have already been reclaimed. kubelet will call StopPodSandbox
   * at least once before calling RemovePodSandbox. It will also attempt to
   * reclaim resources eagerly, as soon as a sandbox is not needed. Hence,
   * multiple StopPodSandbox calls are expected.
   */
  StopPodSandbox(argument: _runtime_v1_StopPodSandboxRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_runtime_v1_StopPodSandboxResponse__Output>): grpc.ClientUnaryCall;
  StopPodSandbox(argument: _runtime_v1_StopPodSandboxRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_runtime_v1_StopPodSandboxResponse__Output>): grpc.ClientUnaryCall;
  StopPodSandbox(argument: _runtime_v1_StopPodSandboxRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_runtime_v1_StopPodSandboxResponse__Output>): grpc.ClientUnaryCall;
  StopPodSandbox(argument: _runtime_v1_StopPodSandboxRequest, callback: grpc.requestCallback<_runtime_v1_StopPodSandboxResponse__Output>): grpc.ClientUnaryCall;
  /**
   * StopPodSandbox stops any running process that is part of the sandbox and
   * reclaims network resources (e.g., IP addresses) allocated to the sandbox.
   * If there are any running containers in the sandbox, they must be forcibly
   * terminated.
   * This call is idempotent, and must not return an error if all relevant
   * resources have already been reclaimed. kubelet will call StopPodSandbox
   * at least once before calling RemovePodSandbox. It will also attempt to
   * reclaim resources eagerly, as soon as a sandbox is not needed. Hence,
   * multiple StopPodSandbox calls are expected.
   */
  stopPodSandbox(argument: _runtime_v1_StopPodSandboxRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_runtime_v1_StopPodSandboxResponse__Output>): grpc.ClientUnaryCall;
  stopPodSandbox(argument: _runtime_v1_StopPodSandboxRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_runtime_v1_StopPodSandboxResponse__Output>): grpc.ClientUnaryCall;
  stopPodSandbox(argument: _runtime_v1_StopPodSandboxRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_runtime_v1_StopPodSandboxResponse__Output>): grpc.ClientUnaryCall;
  stopPodSandbox(argument: _runtime_v1_StopPodSandboxRequest, callback: grpc.requestCallback<_runtime_v1_StopPodSandboxResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * UpdateContainerResources updates ContainerConfig of the container synchronously.
   * If runtime fails to transactionally update the requested resources, an error is returned.
   */
  UpdateContainerResources(argument: _runtime_v1_UpdateContainerResourcesRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_runtime_v1_UpdateContainerResourcesResponse__Output>): grpc.ClientUnaryCall;
  UpdateContainerResources(argument: _runtime_v1_UpdateContainerResourcesRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_runtime_v1_UpdateContainerResourcesResponse__Output>): grpc.ClientUnaryCall;
  UpdateContainerResources(argument: _runtime_v1_UpdateContainerResourcesRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_runtime_v1_UpdateContainerResourcesResponse__Output>): grpc.ClientUnaryCall;
  UpdateContainerResources(argument: _runtime_v1_UpdateContainerResourcesRequest, callback: grpc.requestCallback<_runtime_v1_UpdateContainerResourcesResponse__Output>): grpc.ClientUnaryCall;
  /**
   * UpdateContainerResources updates ContainerConfig of the container synchronously.
   * If runtime fails to transactionally update the requested resources, an error is returned.
   */
  updateContainerResources(argument: _runtime_v1_UpdateContainerResourcesRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_runtime_v1_UpdateContainerResourcesResponse__Output>): grpc.ClientUnaryCall;
  updateContainerResources(argument: _runtime_v1_UpdateContainerResourcesRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_runtime_v1_UpdateContainerResourcesResponse__Output>): grpc.ClientUnaryCall;
  updateContainerResources(argument: _runtime_v1_UpdateContainerResourcesRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_runtime_v1_UpdateContainerResourcesResponse__Output>): grpc.ClientUnaryCall;
  updateContainerResources(argument: _runtime_v1_UpdateContainerResourcesRequest, callback: grpc.requestCallback<_runtime_v1_UpdateContainerResourcesResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * UpdateRuntimeConfig updates the runtime configuration based on the given request.
   */
  UpdateRuntimeConfig(argument: _runtime_v1_UpdateRuntimeConfigRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_runtime_v1_UpdateRuntimeConfigResponse__Output>): grpc.ClientUnaryCall;
  UpdateRuntimeConfig(argument: _runtime_v1_UpdateRuntimeConfigRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_runtime_v1_UpdateRuntimeConfigResponse__Output>): grpc.ClientUnaryCall;
  UpdateRuntimeConfig(argument: _runtime_v1_UpdateRuntimeConfigRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_runtime_v1_UpdateRuntimeConfigResponse__Output>): grpc.ClientUnaryCall;
  UpdateRuntimeConfig(argument: _runtime_v1_UpdateRuntimeConfigRequest, callback: grpc.requestCallback<_runtime_v1_UpdateRuntimeConfigResponse__Output>): grpc.ClientUnaryCall;
  /**
   * UpdateRuntimeConfig updates the runtime configuration based on the given request.
   */
  updateRuntimeConfig(argument: _runtime_v1_UpdateRuntimeConfigRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_runtime_v1_UpdateRuntimeConfigResponse__Output>): grpc.ClientUnaryCall;
  updateRuntimeConfig(argument: _runtime_v1_UpdateRuntimeConfigRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_runtime_v1_UpdateRuntimeConfigResponse__Output>): grpc.ClientUnaryCall;
  updateRuntimeConfig(argument: _runtime_v1_UpdateRuntimeConfigRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_runtime_v1_UpdateRuntimeConfigResponse__Output>): grpc.ClientUnaryCall;
  updateRuntimeConfig(argument: _runtime_v1_UpdateRuntimeConfigRequest, callback: grpc.requestCallback<_runtime_v1_UpdateRuntimeConfigResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * Version returns the runtime name, runtime version, and runtime API version.
   */
  Version(argument: _runtime_v1_VersionRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_runtime_v1_VersionResponse__Output>): grpc.ClientUnaryCall;
  Version(argument: _runtime_v1_VersionRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_runtime_v1_VersionResponse__Output>): grpc.ClientUnaryCall;
  Version(argument: _runtime_v1_VersionRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_runtime_v1_VersionResponse__Output>): grpc.ClientUnaryCall;
  Version(argument: _runtime_v1_VersionRequest, callback: grpc.requestCallback<_runtime_v1_VersionResponse__Output>): grpc.ClientUnaryCall;
  /**
   * Version returns the runtime name, runtime version, and runtime API version.
   */
  version(argument: _runtime_v1_VersionRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_runtime_v1_VersionResponse__Output>): grpc.ClientUnaryCall;
  version(argument: _runtime_v1_VersionRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_runtime_v1_VersionResponse__Output>): grpc.ClientUnaryCall;
  version(argument: _runtime_v1_VersionRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_runtime_v1_VersionResponse__Output>): grpc.ClientUnaryCall;
  version(argument: _runtime_v1_VersionRequest, callback: grpc.requestCallback<_runtime_v1_VersionResponse__Output>): grpc.ClientUnaryCall;
  
}

/**
 * Runtime service defines the public APIs for remote container runtimes
 */
export interface RuntimeServiceHandlers extends grpc.UntypedServiceImplementation {
  /**
   * Attach prepares a streaming endpoint to attach to a running container.
   */
  Attach: grpc.handleUnaryCall<_runtime_v1_AttachRequest__Output, _runtime_v1_AttachResponse>;
  
  /**
   * CheckpointContainer checkpoints a container
   */
  CheckpointContainer: grpc.handleUnaryCall<_runtime_v1_CheckpointContainerRequest__Output, _runtime_v1_CheckpointContainerResponse>;
  
  /**
   * ContainerStats returns stats of the container. If the container does not
   * exist, the call returns an error.
   */
  ContainerStats: grpc.handleUnaryCall<_runtime_v1_ContainerStatsRequest__Output, _runtime_v1_ContainerStatsResponse>;
  
  /**
   * ContainerStatus returns status of the container. If the container is not
   * present, returns an error.
   */
  ContainerStatus: grpc.handleUnaryCall<_runtime_v1_ContainerStatusRequest__Output, _runtime_v1_ContainerStatusResponse>;
  
  /**
   * CreateContainer creates a new container in specified PodSandbox
   */
  CreateContainer: grpc.handleUnaryCall<_runtime_v1_CreateContainerRequest__Output, _runtime_v1_CreateContainerResponse>;
  
  /**
   * Exec prepares a streaming endpoint to execute a command in the container.
   */
  Exec: grpc.handleUnaryCall<_runtime_v1_ExecRequest__Output, _runtime_v1_ExecResponse>;
  
  /**
   * ExecSync runs a command in a container synchronously.
   */
  ExecSync: grpc.handleUnaryCall<_runtime_v1_ExecSyncRequest__Output, _runtime_v1_ExecSyncResponse>;
  
  /**
   * GetContainerEvents gets container events from the CRI runtime
   */
  GetContainerEvents: grpc.handleServerStreamingCall<_runtime_v1_GetEventsRequest__Output, _runtime_v1_ContainerEventResponse>;
  
  /**
   * ListContainerStats returns stats of all running containers.
   */
  ListContainerStats: grpc.handleUnaryCall<_runtime_v1_ListContainerStatsRequest__Output, _runtime_v1_ListContainerStatsResponse>;
  
  /**
   * ListContainers lists all containers by filters.
   */
  ListContainers: grpc.handleUnaryCall<_runtime_v1_ListContainersRequest__Output, _runtime_v1_ListContainersResponse>;
  
  /**
   * ListMetricDescriptors gets the descriptors for the metrics that will be returned in ListPodSandboxMetrics.
   * This list should be static at startup: either the client and server restart together when
   * adding or removing metrics descriptors, or they should not change.
   * Put differently, if ListPodSandboxMetrics references a name that is not described in the initial
   * ListMetricDescriptors call, then the metric will not be broadcasted.
   */
  ListMetricDescriptors: grpc.handleUnaryCall<_runtime_v1_ListMetricDescriptorsRequest__Output, _runtime_v1_ListMetricDescriptorsResponse>;
  
  /**
   * ListPodSandbox returns a list of PodSandboxes.
   */
  ListPodSandbox: grpc.handleUnaryCall<_runtime_v1_ListPodSandboxRequest__Output, _runtime_v1_ListPodSandboxResponse>;
  
  /**
   * ListPodSandboxMetrics gets pod sandbox metrics from CRI Runtime
   */
  ListPodSandboxMetrics: grpc.handleUnaryCall<_runtime_v1_ListPodSandboxMetricsRequest__Output, _runtime_v1_ListPodSandboxMetricsResponse>;
  
  /**
   * ListPodSandboxStats returns stats of the pod sandboxes matching a filter.
   */
  ListPodSandboxStats: grpc.handleUnaryCall<_runtime_v1_ListPodSandboxStatsRequest__Output, _runtime_v1_ListPodSandboxStatsResponse>;
  
  /**
   * PodSandboxStats returns stats of the pod sandbox. If the pod sandbox does not
   * exist, the call returns an error.
   */
  PodSandboxStats: grpc.handleUnaryCall<_runtime_v1_PodSandboxStatsRequest__Output, _runtime_v1_PodSandboxStatsResponse>;
  
  /**
   * PodSandboxStatus returns the status of the PodSandbox. If the PodSandbox is not
   * present, returns an error.
   */
  PodSandboxStatus: grpc.handleUnaryCall<_runtime_v1_PodSandboxStatusRequest__Output, _runtime_v1_PodSandboxStatusResponse>;
  
  /**
   * PortForward prepares a streaming endpoint to forward ports from a PodSandbox.
   */
  PortForward: grpc.handleUnaryCall<_runtime_v1_PortForwardRequest__Output, _runtime_v1_PortForwardResponse>;
  
  /**
   * RemoveContainer removes the container. If the container is running, the
   * container must be forcibly removed.
   * This call is idempotent, and must not return an error if the container has
   * already been removed.
   */
  RemoveContainer: grpc.handleUnaryCall<_runtime_v1_RemoveContainerRequest__Output, _runtime_v1_RemoveContainerResponse>;
  
  /**
   * RemovePodSandbox removes the sandbox. If there are any running containers
   * in the sandbox, they must be forcibly terminated and removed.
   * This call is idempotent, and must not return an error if the sandbox has
   * already been removed.
   */
  RemovePodSandbox: grpc.handleUnaryCall<_runtime_v1_RemovePodSandboxRequest__Output, _runtime_v1_RemovePodSandboxResponse>;
  
  /**
   * ReopenContainerLog asks runtime to reopen the stdout/stderr log file
   * for the container. This is often called after the log file has been
   * rotated. If the container is not running, container runtime can choose
   * to either create a new log file and return nil, or return an error.
   * Once it returns error, new container log file MUST NOT be created.
   */
  ReopenContainerLog: grpc.handleUnaryCall<_runtime_v1_ReopenContainerLogRequest__Output, _runtime_v1_ReopenContainerLogResponse>;
  
  /**
   * RunPodSandbox creates and starts a pod-level sandbox. Runtimes must ensure
   * the sandbox is in the ready state on success.
   */
  RunPodSandbox: grpc.handleUnaryCall<_runtime_v1_RunPodSandboxRequest__Output, _runtime_v1_RunPodSandboxResponse>;
  
  /**
   * RuntimeConfig returns configuration information of the runtime.
   * A couple of notes:
   * - The RuntimeConfigRequest object is not to be confused with the contents of UpdateRuntimeConfigRequest.
   * The former is for having runtime tell Kubelet what to do, the latter vice versa.
   * - It is the expectation of the Kubelet that these fields are static for the lifecycle of the Kubelet.
   * The Kubelet will not re-request the RuntimeConfiguration after startup, and CRI implementations should
   * avoid updating them without a full node reboot.
   */
  RuntimeConfig: grpc.handleUnaryCall<_runtime_v1_RuntimeConfigRequest__Output, _runtime_v1_RuntimeConfigResponse>;
  
  /**
   * StartContainer starts the container.
   */
  StartContainer: grpc.handleUnaryCall<_runtime_v1_StartContainerRequest__Output, _runtime_v1_StartContainerResponse>;
  
  /**
   * Status returns the status of the runtime.
   */
  Status: grpc.handleUnaryCall<_runtime_v1_StatusRequest__Output, _runtime_v1_StatusResponse>;
  
  /**
   * StopContainer stops a running container with a grace period (i.e., timeout).
   * This call is idempotent, and must not return an error if the container has
   * already been stopped.
   * The runtime must forcibly kill the container after the grace period is
   * reached.
   */
  StopContainer: grpc.handleUnaryCall<_runtime_v1_StopContainerRequest__Output, _runtime_v1_StopContainerResponse>;
  
  /**
   * StopPodSandbox stops any running process that is part of the sandbox and
   * reclaims network resources (e.g., IP addresses) allocated to the sandbox.
   * If there are any running containers in the sandbox, they must be forcibly
   * terminated.
   * This call is idempotent, and must not return an error if all relevant
   * resources have already been reclaimed. kubelet will call StopPodSandbox
   * at least once before calling RemovePodSandbox. It will also attempt to
   * reclaim resources eagerly, as soon as a sandbox is not needed. Hence,
   * multiple StopPodSandbox calls are expected.
   */
  StopPodSandbox: grpc.handleUnaryCall<_runtime_v1_StopPodSandboxRequest__Output, _runtime_v1_StopPodSandboxResponse>;
  
  /**
   * UpdateContainerResources updates ContainerConfig of the container synchronously.
   * If runtime fails to transactionally update the requested resources, an error is returned.
   */
  UpdateContainerResources: grpc.handleUnaryCall<_runtime_v1_UpdateContainerResourcesRequest__Output, _runtime_v1_UpdateContainerResourcesResponse>;
  
  /**
   * UpdateRuntimeConfig updates the runtime configuration based on the given request.
   */
  UpdateRuntimeConfig: grpc.handleUnaryCall<_runtime_v1_UpdateRuntimeConfigRequest__Output, _runtime_v1_UpdateRuntimeConfigResponse>;
  
  /**
   * Version returns the runtime name, runtime version, and runtime API version.
   */
  Version: grpc.handleUnaryCall<_runtime_v1_VersionRequest__Output, _runtime_v1_VersionResponse>;
  
}

export interface RuntimeServiceDefinition extends grpc.ServiceDefinition {
  Attach: MethodDefinition<_runtime_v1_AttachRequest, _runtime_v1_AttachResponse, _runtime_v1_AttachRequest__Output, _runtime_v1_AttachResponse__Output>
  CheckpointContainer: MethodDefinition<_runtime_v1_CheckpointContainerRequest, _runtime_v1_CheckpointContainerResponse, _runtime_v1_CheckpointContainerRequest__Output, _runtime_v1_CheckpointContainerResponse__Output>
  ContainerStats: MethodDefinition<_runtime_v1_ContainerStatsRequest, _runtime_v1_ContainerStatsResponse, _runtime_v1_ContainerStatsRequest__Output, _runtime_v1_ContainerStatsResponse__Output>
  ContainerStatus: MethodDefinition<_runtime_v1_ContainerStatusRequest, _runtime_v1_ContainerStatusResponse, _runtime_v1_ContainerStatusRequest__Output, _runtime_v1_ContainerStatusResponse__Output>
  CreateContainer: MethodDefinition<_runtime_v1_CreateContainerRequest, _runtime_v1_CreateContainerResponse, _runtime_v1_CreateContainerRequest__Output, _runtime_v1_CreateContainerResponse__Output>
  Exec: MethodDefinition<_runtime_v1_ExecRequest, _runtime_v1_ExecResponse, _runtime_v1_ExecRequest__Output, _runtime_v1_ExecResponse__Output>
  ExecSync: MethodDefinition<_runtime_v1_ExecSyncRequest, _runtime_v1_ExecSyncResponse, _runtime_v1_ExecSyncRequest__Output, _runtime_v1_ExecSyncResponse__Output>
  GetContainerEvents: MethodDefinition<_runtime_v1_GetEventsRequest, _runtime_v1_ContainerEventResponse, _runtime_v1_GetEventsRequest__Output, _runtime_v1_ContainerEventResponse__Output>
  ListContainerStats: MethodDefinition<_runtime_v1_ListContainerStatsRequest, _runtime_v1_ListContainerStatsResponse, _runtime_v1_ListContainerStatsRequest__Output, _runtime_v1_ListContainerStatsResponse__Output>
  ListContainers: MethodDefinition<_runtime_v1_ListContainersRequest, _runtime_v1_ListContainersResponse, _runtime_v1_ListContainersRequest__Output, _runtime_v1_ListContainersResponse__Output>
  ListMetricDescriptors: MethodDefinition<_runtime_v1_ListMetricDescriptorsRequest, _runtime_v1_ListMetricDescriptorsResponse, _runtime_v1_ListMetricDescriptorsRequest__Output, _runtime_v1_ListMetricDescriptorsResponse__Output>
  ListPodSandbox: MethodDefinition<_runtime_v1_ListPodSandboxRequest, _runtime_v1_ListPodSandboxResponse, _runtime_v1_ListPodSandboxRequest__Output, _runtime_v1_ListPodSandboxResponse__Output>
  ListPodSandboxMetrics: MethodDefinition<_runtime_v1_ListPodSandboxMetricsRequest, _runtime_v1_ListPodSandboxMetricsResponse, _runtime_v1_ListPodSandboxMetricsRequest__Output, _runtime_v1_ListPodSandboxMetricsResponse__Output>
  ListPodSandboxStats: MethodDefinition<_runtime_v1_ListPodSandboxStatsRequest, _runtime_v1_ListPodSandboxStatsResponse, _runtime_v1_ListPodSandboxStatsRequest__Output, _runtime_v1_ListPodSandboxStatsResponse__Output>
  PodSandboxStats: MethodDefinition<_runtime_v1_PodSandboxStatsRequest, _runtime_v1_PodSandboxStatsResponse, _runtime_v1_PodSandboxStatsRequest__Output, _runtime_v1_PodSandboxStatsResponse__Output>
  PodSandboxStatus: MethodDefinition<_runtime_v1_PodSandboxStatusRequest, _runtime_v1_PodSandboxStatusResponse, _runtime_v1_PodSandboxStatusRequest__Output, _runtime_v1_PodSandboxStatusResponse__Output>
  PortForward: MethodDefinition<_runtime_v1_PortForwardRequest, _runtime_v1_PortForwardResponse, _runtime_v1_PortForwardRequest__Output, _runtime_v1_PortForwardResponse__Output>
  RemoveContainer: MethodDefinition<_runtime_v1_RemoveContainerRequest, _runtime_v1_RemoveContainerResponse, _runtime_v1_RemoveContainerRequest__Output, _runtime_v1_RemoveContainerResponse__Output>
  RemovePodSandbox: MethodDefinition<_runtime_v1_RemovePodSandboxRequest, _runtime_v1_RemovePodSandboxResponse, _runtime_v1_RemovePodSandboxRequest__Output, _runtime_v1_RemovePodSandboxResponse__Output>
  ReopenContainerLog: MethodDefinition<_runtime_v1_ReopenContainerLogRequest, _runtime_v1_ReopenContainerLogResponse, _runtime_v1_ReopenContainerLogRequest__Output, _runtime_v1_ReopenContainerLogResponse__Output>
  RunPodSandbox: MethodDefinition<_runtime_v1_RunPodSandboxRequest, _runtime_v1_RunPodSandboxResponse, _runtime_v1_RunPodSandboxRequest__Output, _runtime_v1_RunPodSandboxResponse__Output>
  RuntimeConfig: MethodDefinition<_runtime_v1_RuntimeConfigRequest, _runtime_v1_RuntimeConfigResponse, _runtime_v1_RuntimeConfigRequest__Output, _runtime_v1_RuntimeConfigResponse__Output>
  StartContainer: MethodDefinition<_runtime_v1_StartContainerRequest, _runtime_v1_StartContainerResponse, _runtime_v1_StartContainerRequest__Output, _runtime_v1_StartContainerResponse__Output>
  Status: MethodDefinition<_runtime_v1_StatusRequest, _runtime_v1_StatusResponse, _runtime_v1_StatusRequest__Output, _runtime_v1_StatusResponse__Output>
  StopContainer: MethodDefinition<_runtime_v1_StopContainerRequest, _runtime_v1_StopContainerResponse, _runtime_v1_StopContainerRequest__Output, _runtime_v1_StopContainerResponse__Output>
  StopPodSandbox: MethodDefinition<_runtime_v1_StopPodSandboxRequest, _runtime_v1_StopPodSandboxResponse, _runtime_v1_StopPodSandboxRequest__Output, _runtime_v1_StopPodSandboxResponse__Output>
  UpdateContainerResources: MethodDefinition<_runtime_v1_UpdateContainerResourcesRequest, _runtime_v1_UpdateContainerResourcesResponse, _runtime_v1_UpdateContainerResourcesRequest__Output, _runtime_v1_UpdateContainerResourcesResponse__Output>
  UpdateRuntimeConfig: MethodDefinition<_runtime_v1_UpdateRuntimeConfigRequest, _runtime_v1_UpdateRuntimeConfigResponse, _runtime_v1_UpdateRuntimeConfigRequest__Output, _runtime_v1_UpdateRuntimeConfigResponse__Output>
  Version: MethodDefinition<_runtime_v1_VersionRequest, _runtime_v1_VersionResponse, _runtime_v1_VersionRequest__Output, _runtime_v1_VersionResponse__Output>
}
