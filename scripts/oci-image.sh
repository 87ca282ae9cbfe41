# oci-image.sh — sourced by build-images.sh and conformance/images.sh: the one way this repo makes an
# image offline.
#
# oci_image LAYOUT WORKDIR TAG POPULATE_FN NAME OUTFILE CREATED_BY [umoci config args...]
#   An image of one layer that POPULATE_FN ROOTFS fills, built with umoci in the OCI layout LAYOUT
#   (unpacked under WORKDIR/bundle-TAG), written by skopeo as a docker archive OUTFILE whose
#   manifest.json RepoTags carries NAME — what `ctr -n k8s.io images import` names the image (it
#   names OCI archives less reliably). Needs umoci, skopeo, and root (umoci unpack keeps file owners).
oci_image() {
  local layout=$1 work=$2 tag=$3 populate=$4 name=$5 outfile=$6 created_by=$7
  shift 7
  local bundle=$work/bundle-$tag
  umoci new --image "$layout:$tag"
  umoci unpack --image "$layout:$tag" "$bundle" >/dev/null
  "$populate" "$bundle/rootfs"
  umoci repack --image "$layout:$tag" --history.created_by "$created_by" "$bundle"
  umoci config --image "$layout:$tag" --architecture amd64 --os linux --no-history "$@"
  # skopeo will not overwrite an archive: write a new file, then move it into place.
  rm -f "$outfile.new"
  skopeo copy --quiet "oci:$layout:$tag" "docker-archive:$outfile.new:$name"
  mv -f "$outfile.new" "$outfile"
}
