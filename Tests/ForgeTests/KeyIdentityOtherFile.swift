import Forge

// The other file of KeyIdentityTests: the same key, declared here.
extension KeyIdentityContainer {
  var otherFileLogger: Service { provide(.singleton, key: "logger") { Service("other file") } }
}
