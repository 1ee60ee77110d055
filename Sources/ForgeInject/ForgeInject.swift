// The engine's diagnostics (`DependencyCycleError`, …) are part of this API.
@_exported import ForgeCore
// User code uses `Mutex` after `import ForgeInject` alone, as with the
// original library. (On Apple platforms `Mutex` needs macOS 15 / iOS 18.)
@_exported import Synchronization
