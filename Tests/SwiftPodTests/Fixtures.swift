@_exported import ForgeTestSupport
import SwiftPod

final class SignUpScope: ProviderScope {
  let children: [any ProviderScope] = [SignUpStepScope()]
}

final class SignUpStepScope: ProviderScope {
  let children: [any ProviderScope] = []
}

struct UnrelatedScope: ProviderScope {
  let children: [any ProviderScope] = []
}

/// A scope whose children point back at it; clearing must still end.
struct LoopingScope: ProviderScope {
  var children: [any ProviderScope] { [LoopingScope()] }
}
