import WPText
import WPRuntime

/// The two exposition formats WPMetrics renders, and content negotiation between them.
///
/// ```swift
/// let format = ExpositionFormat.negotiate(accept: acceptHeader)   // the scrape's Accept, or nil
/// let contentType = format.contentType
/// let body = registry.render(format: format)
/// ```
public enum ExpositionFormat: String, Sendable, Hashable, CaseIterable {
    /// Prometheus text format 0.0.4.
    case text
    /// OpenMetrics text 1.0.0 (ends with `# EOF`).
    case openMetrics

    /// The `Content-Type` header value for a response in this format.
    public var contentType: String {
        switch self {
        case .text: return "text/plain; version=0.0.4; charset=utf-8"
        case .openMetrics: return "application/openmetrics-text; version=1.0.0; charset=utf-8"
        }
    }

    /// Picks the format for a scrape from its `Accept` header.
    ///
    /// Media ranges are ranked by q-value (default 1; `q=0` means "not acceptable"), ties keep
    /// header order. The first acceptable range WPMetrics can serve wins:
    /// `application/openmetrics-text` (versions 1.0.0, 0.0.1 or none) selects OpenMetrics;
    /// `text/plain` (version 0.0.4, 1.0.0 or none), `text/*` and `*/*` select the text format.
    /// Anything else (protobuf, a missing or malformed header) falls back to the text format.
    ///
    /// - Parameter accept: The raw `Accept` header value, or nil when absent.
    /// - Returns: The format to render.
    public static func negotiate(accept: String?) -> ExpositionFormat {
        guard let accept else { return .text }
        var best: (format: ExpositionFormat, quality: Double)?
        for range in accept.split(separator: ",") {
            guard let offer = parse(range), offer.quality > 0 else { continue }
            if let current = best, current.quality >= offer.quality { continue }
            if let format = servable(offer) { best = (format, offer.quality) }
        }
        return best?.format ?? .text
    }

    private struct Offer {
        var mediaType: Substring
        var version: Substring?
        var quality: Double
    }

    private static func parse(_ range: Substring) -> Offer? {
        var parts = range.split(separator: ";").makeIterator()
        guard let media = parts.next()?.trimmingSpacesAndTabs(), !media.isEmpty else { return nil }
        var offer = Offer(mediaType: Substring(media), version: nil, quality: 1)
        while let parameter = parts.next() {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            guard pair.count == 2 else { continue }
            let key = pair[0].trimmingSpacesAndTabs().lowercased()
            let value = pair[1].trimmingSpacesAndTabs()
            if key == "q" {
                guard let quality = Double(value), quality >= 0, quality <= 1 else { return nil }
                offer.quality = quality
            } else if key == "version" {
                offer.version = Substring(value)
            }
        }
        return offer
    }

    private static func servable(_ offer: Offer) -> ExpositionFormat? {
        switch offer.mediaType.lowercased() {
        case "application/openmetrics-text":
            switch offer.version {
            case nil, "1.0.0", "0.0.1": return .openMetrics
            default: return nil
            }
        case "text/plain":
            switch offer.version {
            case nil, "0.0.4", "1.0.0": return .text
            default: return nil
            }
        case "text/*", "*/*":
            return .text
        default:
            return nil
        }
    }
}


