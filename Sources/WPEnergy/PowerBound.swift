/// The default plausibility bound on a device's active power: readings above it are glitches
/// (a `loadTotalWatt` of `1e12`) and are not integrated, because an energy counter inflated
/// once stays inflated forever.
///
/// Active power cannot exceed apparent power, and a UPS carries at most its rating — 100 %
/// continuously, typically 110–150 % for seconds to a minute before it transfers the load to
/// bypass or shuts down. Twice the rating leaves room for any real overload, a load on bypass
/// and measurement noise, and still refuses the glitches that matter (unit mix-ups are ×1000,
/// overflowed registers far more). Without a usable rating the bound is a fixed ceiling above
/// any UPS WinPower manages (the largest modular units are about 1 MVA).
package enum PowerBound {
    /// Multiple of `ratingVa` accepted as active power.
    package static let ratingMultiple = 2.0
    /// Bound when the device reports no usable rating, in watts.
    package static let ceilingWatts = 2_000_000.0

    /// `ratingMultiple × ratingVa` when the rating is finite and positive, else ``ceilingWatts``.
    package static func bound(ratingVa: Double?) -> Double {
        guard let ratingVa, ratingVa.isFinite, ratingVa > 0 else { return ceilingWatts }
        return min(ratingVa * ratingMultiple, ceilingWatts)
    }
}
