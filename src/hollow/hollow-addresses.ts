// Where hollow node i lives on the (imaginary) network: a Node InternalIP of its own and a /24 of pod IPs
// of its own, so that pod IPs are unique across the fleet as a cluster's CNI makes them (Endpoints,
// Services and NetworkPolicies see them), and nothing collides with this host's real addresses.
//   node i: InternalIP 172.(16 + k>>16).(k>>8 & 255).(k & 255) with k = i + 1 (172.16.0.0/12)
//   pods:   10.(64 + i>>8).(i & 255).0/24 (10.64.0.0/10: 16,384 nodes of 254 pods)

/** The most hollow nodes one process can address. */
export const MAX_HOLLOW_NODES = 16_384;

export interface HollowAddresses {
  nodeIP: string;
  podCidr: string;
}

export function hollowAddresses(i: number): HollowAddresses {
  if (!Number.isInteger(i) || i < 0 || i >= MAX_HOLLOW_NODES) throw new RangeError(`hollow node index ${i} is outside 0…${MAX_HOLLOW_NODES - 1}`);
  const k = i + 1;
  return {
    nodeIP: `172.${16 + (k >> 16)}.${(k >> 8) & 255}.${k & 255}`,
    podCidr: `10.${64 + (i >> 8)}.${i & 255}.0/24`,
  };
}
