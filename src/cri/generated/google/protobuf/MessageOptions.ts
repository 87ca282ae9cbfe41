// Original file: null

import type { FeatureSet as _google_protobuf_FeatureSet, FeatureSet__Output as _google_protobuf_FeatureSet__Output } from '../../google/protobuf/FeatureSet';
import type { UninterpretedOption as _google_protobuf_UninterpretedOption, UninterpretedOption__Output as _google_protobuf_UninterpretedOption__Output } from '../../google/protobuf/UninterpretedOption';

export interface MessageOptions {
  'messageSetWireFormat'?: (boolean);
  'noStandardDescriptorAccessor'?: (boolean);
  'deprecated'?: (boolean);
  'mapEntry'?: (boolean);
  /**
   * @deprecated
   */
  'deprecatedLegacyJsonFieldConflicts'?: (boolean);
  'features'?: (_google_protobuf_FeatureSet | null);
  'uninterpretedOption'?: (_google_protobuf_UninterpretedOption)[];
  '.gogoproto.goprotoGetters'?: (boolean);
  '.gogoproto.goprotoStringer'?: (boolean);
  '.gogoproto.verboseEqual'?: (boolean);
  '.gogoproto.face'?: (boolean);
  '.gogoproto.gostring'?: (boolean);
  '.gogoproto.populate'?: (boolean);
  '.gogoproto.onlyone'?: (boolean);
  '.gogoproto.equal'?: (boolean);
  '.gogoproto.description'?: (boolean);
  '.gogoproto.testgen'?: (boolean);
  '.gogoproto.benchgen'?: (boolean);
  '.gogoproto.marshaler'?: (boolean);
  '.gogoproto.unmarshaler'?: (boolean);
  '.gogoproto.stableMarshaler'?: (boolean);
  '.gogoproto.sizer'?: (boolean);
  '.gogoproto.unsafeMarshaler'?: (boolean);
  '.gogoproto.unsafeUnmarshaler'?: (boolean);
  '.gogoproto.goprotoExtensionsMap'?: (boolean);
  '.gogoproto.goprotoUnrecognized'?: (boolean);
  '.gogoproto.protosizer'?: (boolean);
  '.gogoproto.compare'?: (boolean);
  '.gogoproto.typedecl'?: (boolean);
  '.gogoproto.messagename'?: (boolean);
  '.gogoproto.goprotoSizecache'?: (boolean);
  '.gogoproto.goprotoUnkeyed'?: (boolean);
  '.gogoproto.stringer'?: (boolean);
}

export interface MessageOptions__Output {
  'messageSetWireFormat': (boolean);
  'noStandardDescriptorAccessor': (boolean);
  'deprecated': (boolean);
  'mapEntry': (boolean);
  /**
   * @deprecated
   */
  'deprecatedLegacyJsonFieldConflicts': (boolean);
  'features': (_google_protobuf_FeatureSet__Output | null);
  'uninterpretedOption': (_google_protobuf_UninterpretedOption__Output)[];
  '.gogoproto.goprotoGetters': (boolean);
  '.gogoproto.goprotoStringer': (boolean);
  '.gogoproto.verboseEqual': (boolean);
  '.gogoproto.face': (boolean);
  '.gogoproto.gostring': (boolean);
  '.gogoproto.populate': (boolean);
  '.gogoproto.onlyone': (boolean);
  '.gogoproto.equal': (boolean);
  '.gogoproto.description': (boolean);
  '.gogoproto.testgen': (boolean);
  '.gogoproto.benchgen': (boolean);
  '.gogoproto.marshaler': (boolean);
  '.gogoproto.unmarshaler': (boolean);
  '.gogoproto.stableMarshaler': (boolean);
  '.gogoproto.sizer': (boolean);
  '.gogoproto.unsafeMarshaler': (boolean);
  '.gogoproto.unsafeUnmarshaler': (boolean);
  '.gogoproto.goprotoExtensionsMap': (boolean);
  '.gogoproto.goprotoUnrecognized': (boolean);
  '.gogoproto.protosizer': (boolean);
  '.gogoproto.compare': (boolean);
  '.gogoproto.typedecl': (boolean);
  '.gogoproto.messagename': (boolean);
  '.gogoproto.goprotoSizecache': (boolean);
  '.gogoproto.goprotoUnkeyed': (boolean);
  '.gogoproto.stringer': (boolean);
}
