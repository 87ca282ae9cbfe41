// Original file: /work/main/proto/api.proto


/**
 * RuntimeCondition contains condition information for the runtime.
 * There are 2 kinds of runtime conditions:
 * 1. Required conditions: Conditions are required for kubelet to work
 * properly. If any required condition is unmet, the node will be not ready.
 * The required conditions include:
 * * RuntimeReady: RuntimeReady means the runtime is up and ready to accept
 * basic containers e.g. container only needs host network.
 * * NetworkReady: NetworkReady means the runtime network is up and ready to
 * accept containers which require container network.
 * 2. Optional conditions: Conditions are informative to the user, but kubelet
 * will not rely on. Since condition type is an arbitrary string, all conditions
 * not required are optional. These conditions will be exposed to users to help
 * them understand the status of the system.
 */
export interface RuntimeCondition {
  /**
   * Type of runtime condition.
   */
  'type'?: (string);
  /**
   * Status of the condition, one of true/false. Default: false.
   */
  'status'?: (boolean);
  /**
   * Brief CamelCase string containing reason for the condition's last transition.
   */
  'reason'?: (string);
  /**
   * Human-readable message indicating details about last transition.
   */
  'message'?: (string);
}

/**
 * RuntimeCondition contains condition information for the runtime.
 * There are 2 kinds of runtime conditions:
 * 1. Required conditions: Conditions are required for kubelet to work
 * properly. If any required condition is unmet, the node will be not ready.
 * The required conditions include:
 * * RuntimeReady: RuntimeReady means the runtime is up and ready to accept
 * basic containers e.g. container only needs host network.
 * * NetworkReady: NetworkReady means the runtime network is up and ready to
 * accept containers which require container network.
 * 2. Optional conditions: Conditions are informative to the user, but kubelet
 * will not rely on. Since condition type is an arbitrary string, all conditions
 * not required are optional. These conditions will be exposed to users to help
 * them understand the status of the system.
 */
export interface RuntimeCondition__Output {
  /**
   * Type of runtime condition.
   */
  'type': (string);
  /**
   * Status of the condition, one of true/false. Default: false.
   */
  'status': (boolean);
  /**
   * Brief CamelCase string containing reason for the condition's last transition.
   */
  'reason': (string);
  /**
   * Human-readable message indicating details about last transition.
   */
  'message': (string);
}
