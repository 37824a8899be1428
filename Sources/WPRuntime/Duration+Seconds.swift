extension Duration {
    /// The duration in seconds as a `Double` (attoseconds kept as the fraction): what
    /// Prometheus' `_seconds` families, rates and wall-clock offsets take.
    ///
    /// ```swift
    /// Duration.milliseconds(1_500).inSeconds   // 1.5
    /// ```
    @inlinable
    public var inSeconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
