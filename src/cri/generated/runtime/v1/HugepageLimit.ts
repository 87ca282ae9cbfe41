// Original file: /work/main/proto/api.proto

import type { Long } from '@grpc/proto-loader';

/**
 * HugepageLimit corresponds to the file`hugetlb.<hugepagesize>.limit_in_byte` in container level cgroup.
 * For example, `PageSize=1GB`, `Limit=1073741824` means setting `1073741824` bytes to hugetlb.1GB.limit_in_bytes.
 */
export interface HugepageLimit {
  /**
   * The value of PageSize has the format <size><unit-prefix>B (2MB, 1GB),
   * and must match the <hugepagesize> of the corresponding control file found in `hugetlb.<hugepagesize>.limit_in_bytes`.
   * The values of <unit-prefix> are intended to be parsed using base 1024("1KB" = 1024, "1MB" = 1048576, etc).
   */
  'pageSize'?: (string);
  /**
   * limit in bytes of hugepagesize HugeTLB usage.
   */
  'limit'?: (number | string | Long);
}

/**
 * HugepageLimit corresponds to the file`hugetlb.<hugepagesize>.limit_in_byte` in container level cgroup.
 * For example, `PageSize=1GB`, `Limit=1073741824` means setting `1073741824` bytes to hugetlb.1GB.limit_in_bytes.
 */
export interface HugepageLimit__Output {
  /**
   * The value of PageSize has the format <size><unit-prefix>B (2MB, 1GB),
   * and must match the <hugepagesize> of the corresponding control file found in `hugetlb.<hugepagesize>.limit_in_bytes`.
   * The values of <unit-prefix> are intended to be parsed using base 1024("1KB" = 1024, "1MB" = 1048576, etc).
   */
  'pageSize': (string);
  /**
   * limit in bytes of hugepagesize HugeTLB usage.
   */
  'limit': (number);
}
