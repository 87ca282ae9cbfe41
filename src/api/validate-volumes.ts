// spec.volumes as ValidateVolumes checks them: exactly one source per volume, the few sources whose
// fields decide whether the pod can run here, unique DNS-label names; and the relative-path rules
// subPath and localhostProfile share.
import type { Volume } from "kubernetes-types/core/v1";
import { Quantity, tryParseQuantity } from "./quantity";
import { child, duplicate, type FieldError, forbidden, index, invalid, notSupported, required } from "./field-error";
import { isDNS1123Label } from "./name-validation";

/** validateVolumeSource's order, with the child names it uses in "more than 1 volume type" errors. */
const VOLUME_SOURCES: ReadonlyArray<readonly [string, string]> = [
  ["emptyDir", "emptyDir"],
  ["hostPath", "hostPath"],
  ["gitRepo", "gitRepo"],
  ["gcePersistentDisk", "gcePersistentDisk"],
  ["awsElasticBlockStore", "awsElasticBlockStore"],
  ["secret", "secret"],
  ["nfs", "nfs"],
  ["iscsi", "iscsi"],
  ["glusterfs", "glusterfs"],
  ["flocker", "flocker"],
  ["persistentVolumeClaim", "persistentVolumeClaim"],
  ["rbd", "rbd"],
  ["cinder", "cinder"],
  ["cephfs", "cephFS"],
  ["quobyte", "quobyte"],
  ["downwardAPI", "downwarAPI" /* sic, upstream */],
  ["fc", "fc"],
  ["flexVolume", "flexVolume"],
  ["configMap", "configMap"],
  ["azureFile", "azureFile"],
  ["vsphereVolume", "vsphereVolume"],
  ["photonPersistentDisk", "photonPersistentDisk"],
  ["portworxVolume", "portworxVolume"],
  ["azureDisk", "azureDisk"],
  ["storageos", "storageos"],
  ["projected", "projected"],
  ["scaleIO", "scaleIO"],
  ["csi", "csi"],
  ["ephemeral", "ephemeral"],
  ["image", "image"],
];

const HOST_PATH_TYPES = ["", "BlockDevice", "CharDevice", "Directory", "DirectoryOrCreate", "File", "FileOrCreate", "Socket"];

function validatePathNoBacksteps(target: string, path: string): FieldError[] {
  return target.split("/").includes("..") ? [invalid(path, target, "must not contain '..'")] : [];
}

export function validateLocalDescendingPath(target: string, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (target.startsWith("/")) errs.push(invalid(path, target, "must be a relative path"));
  errs.push(...validatePathNoBacksteps(target, path));
  return errs;
}

function validateVolumeSource(v: Record<string, unknown>, path: string): FieldError[] {
  const errs: FieldError[] = [];
  let count = 0;
  for (const [k, childName] of VOLUME_SOURCES) {
    const source = v[k];
    if (source === undefined || source === null) continue;
    if (count > 0) {
      errs.push(forbidden(child(path, childName), "may not specify more than 1 volume type"));
      continue;
    }
    count++;
    const src = source as Record<string, unknown>;
    if (k === "hostPath") {
      const p = typeof src.path === "string" ? src.path : "";
      if (!p) errs.push(required(child(path, "hostPath.path")));
      else {
        errs.push(...validatePathNoBacksteps(p, child(path, "hostPath.path")));
        const t = src.type;
        if (typeof t === "string" && !HOST_PATH_TYPES.includes(t)) errs.push(notSupported(child(path, "hostPath.type"), t, HOST_PATH_TYPES));
      }
    } else if (k === "emptyDir" && src.sizeLimit !== undefined && src.sizeLimit !== null) {
      const q = tryParseQuantity(src.sizeLimit as string | number);
      if (q instanceof Quantity && q.sign() < 0) {
        errs.push(forbidden(child(path, "emptyDir.sizeLimit"), "SizeLimit field must be a valid resource quantity"));
      }
    } else if (k === "nfs") {
      if (!src.server) errs.push(required(child(path, "nfs.server")));
      if (!src.path) errs.push(required(child(path, "nfs.path")));
      else if (typeof src.path === "string" && !src.path.startsWith("/")) errs.push(invalid(child(path, "nfs.path"), src.path, "must be an absolute path"));
    } else if (k === "image" && !src.reference) {
      errs.push(required(child(path, "image.reference")));
    }
  }
  if (count === 0) errs.push(required(path, "must specify a volume type"));
  return errs;
}

/** ValidateVolumes: returns the names of the valid volumes, which volumeMounts may refer to. */
export function validateVolumes(volumes: Volume[], path: string, errs: FieldError[]): Map<string, Record<string, unknown>> {
  const valid = new Map<string, Record<string, unknown>>();
  volumes.forEach((vol, i) => {
    const idx = index(path, i);
    const namePath = child(idx, "name");
    const record = vol as unknown as Record<string, unknown>;
    const el = validateVolumeSource(record, idx);
    const name = vol.name ?? "";
    if (!name) el.push(required(namePath));
    else for (const m of isDNS1123Label(name)) el.push(invalid(namePath, name, m));
    if (valid.has(name)) el.push(duplicate(namePath, name));
    if (el.length === 0) valid.set(name, record);
    else errs.push(...el);
  });
  return valid;
}
