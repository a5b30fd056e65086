/// The mDNS runtime's diagnostics and statistics, for an application's own logging and for
/// debugging discovery without a packet capture.
///
/// Diagnostics are off by default and then cost nothing. Setting the `CIAO_LOG` environment
/// variable to `debug`, `info`, `warning` or `error` writes those of that level and above to
/// standard error, one line each, until a handler is set. An adapter to swift-log is a few lines:
/// `CiaoDiagnostics.setHandler { logger.log(level: …, "\($0)") }`.
public enum CiaoDiagnostics {
    /// Sends every diagnostic of `level` and above to `handler`, or stops them when `handler` is
    /// nil. The handler runs on the runtime's thread, one diagnostic at a time, in order: keep it
    /// short, since the runtime waits for it.
    public static func setHandler(level: CiaoDiagnostic.Level = .info, _ handler: (@Sendable (CiaoDiagnostic) -> Void)?)
    {
        DiagnosticHub.shared.setHandler(level: level, handler)
    }

    /// Hands a diagnostic to the handler, for the modules of this package built on the public API
    /// (`CiaoNetService`), whose failures have no other way out.
    package static func emit(
        _ level: CiaoDiagnostic.Level, _ category: CiaoDiagnostic.Category, _ message: @autoclosure () -> String
    ) {
        DiagnosticHub.shared.emit(level, category, message())
    }

    /// The runtime's counters now; all empty before the runtime has started.
    public static func statistics() async -> CiaoStatistics {
        await MDNSRuntime.shared.statistics()
    }
}
