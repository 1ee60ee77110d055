@_exported import ForgeTestSupport

struct Boom: Error, Equatable {}
