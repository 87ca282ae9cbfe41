// The in-tree registry (plugins/registry.go): plugin name → factory taking the plugin's args and the
// framework handle.
import type { PluginFactory } from "../framework/interface";
import { DefaultBinder } from "./default-binder";
import { DefaultPreemption, type DefaultPreemptionArgs } from "./default-preemption";
import { ImageLocality } from "./image-locality";
import { InterPodAffinity, type InterPodAffinityArgs } from "./interpodaffinity/plugin";
import { Names } from "./names";
import { NodeAffinity, type NodeAffinityArgs } from "./node-affinity";
import { NodeName } from "./node-name";
import { NodePorts } from "./node-ports";
import { NodeUnschedulable } from "./node-unschedulable";
import { NodeResourcesBalancedAllocation, type BalancedAllocationArgs } from "./noderesources/balanced-allocation";
import { NodeResourcesFit, type NodeResourcesFitArgs } from "./noderesources/fit";
import type { PodTopologySpreadArgs } from "./podtopologyspread/common";
import { PodTopologySpread } from "./podtopologyspread/plugin";
import { PrioritySort } from "./priority-sort";
import { SchedulingGates } from "./scheduling-gates";
import { TaintToleration } from "./taint-toleration";

export function inTreeRegistry(): Map<string, PluginFactory> {
  return new Map<string, PluginFactory>([
    [Names.PrioritySort, () => new PrioritySort()],
    [Names.SchedulingGates, () => new SchedulingGates()],
    [Names.NodeUnschedulable, () => new NodeUnschedulable()],
    [Names.NodeName, () => new NodeName()],
    [Names.TaintToleration, () => new TaintToleration()],
    [Names.NodeAffinity, (args) => new NodeAffinity(args as NodeAffinityArgs | undefined)],
    [Names.NodePorts, () => new NodePorts()],
    [Names.NodeResourcesFit, (args) => new NodeResourcesFit(args as NodeResourcesFitArgs | undefined)],
    [Names.NodeResourcesBalancedAllocation, (args) => new NodeResourcesBalancedAllocation(args as BalancedAllocationArgs | undefined)],
    [Names.ImageLocality, (_args, h) => new ImageLocality(h)],
    [Names.PodTopologySpread, (args, h) => new PodTopologySpread(h, args as PodTopologySpreadArgs | undefined)],
    [Names.InterPodAffinity, (args, h) => new InterPodAffinity(h, args as InterPodAffinityArgs | undefined)],
    [Names.DefaultPreemption, (args, h) => new DefaultPreemption(h, args as DefaultPreemptionArgs | undefined)],
    [Names.DefaultBinder, (_args, h) => new DefaultBinder(h)],
  ]);
}
