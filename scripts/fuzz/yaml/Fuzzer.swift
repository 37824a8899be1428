// libFuzzer target for the YAML reader (configuration and web configuration files). Built by
// scripts/fuzz.sh yaml together with the reader's sources (not part of the package build).
//
// Besides "never crash" (deep nesting included), it checks that every error points inside the
// document: a line between 1 and the number of lines, a column of at least 1.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzYAMLReader(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: data == nil ? 0 : size), as: UTF8.self)
    do {
        _ = try YAMLReader.parse(text, file: "fuzz.yaml")
    } catch {
        let lines = text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false).count
        if error.position.line < 1 || error.position.line > lines || error.position.column < 1 {
            fatalError("error outside the document (\(lines) lines): \(error)")
        }
    }
    return 0
}
