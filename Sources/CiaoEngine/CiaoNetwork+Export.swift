// The engine's API takes and gives the shared network types (interfaces, addresses, datagrams,
// `Instant`), so importing the engine imports them, as NIOPosix re-exports NIOCore.
@_exported import CiaoNetwork
