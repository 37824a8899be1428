import Logging
import WPLogging

extension BridgeLogHandler {
    /// swift-log metadata as flat WPLogging fields.
    ///
    /// Strings stay strings; `stringConvertible` values become their description; a dictionary
    /// `["http": ["method": "GET"]]` becomes `http.method`; an array `["ids": ["a", "b"]]`
    /// becomes `ids.0` and `ids.1`. An empty dictionary or array is written as `[:]` or `[]` so
    /// the key is not lost. Nesting deeper than ``maximumDepth`` is written as its description.
    public static func flatten(_ metadata: Logging.Logger.Metadata) -> LogFields {
        var fields: LogFields = [:]
        for (key, value) in metadata {
            add(value, key: key, depth: 0, into: &fields)
        }
        return fields
    }

    /// How deep nested metadata is flattened before the rest is written as one value.
    public static var maximumDepth: Int { 8 }

    private static func add(_ value: Logging.Logger.MetadataValue, key: String, depth: Int,
                            into fields: inout LogFields) {
        switch value {
        case .string(let text):
            fields[key] = .string(text)
        case .stringConvertible(let convertible):
            fields[key] = .string(convertible.description)
        case .dictionary(let dictionary):
            if dictionary.isEmpty || depth >= maximumDepth {
                fields[key] = .string(value.description)
                return
            }
            for (child, nested) in dictionary {
                add(nested, key: key + "." + child, depth: depth + 1, into: &fields)
            }
        case .array(let array):
            if array.isEmpty || depth >= maximumDepth {
                fields[key] = .string(value.description)
                return
            }
            for (index, nested) in array.enumerated() {
                add(nested, key: key + "." + String(index), depth: depth + 1, into: &fields)
            }
        }
    }
}
