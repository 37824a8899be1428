import Foundation
import WPConfig

extension FileAccess {
    /// The real filesystem, relative paths resolved against the working directory.
    static var system: FileAccess {
        FileAccess(read: { path in
            let manager = FileManager.default
            var isDirectory: ObjCBool = false
            guard manager.fileExists(atPath: path, isDirectory: &isDirectory) else { return .failure(.notFound) }
            if isDirectory.boolValue { return .failure(.unreadable("it is a directory")) }
            guard manager.isReadableFile(atPath: path), let data = manager.contents(atPath: path) else {
                return .failure(.unreadable("permission denied"))
            }
            guard let text = String(data: data, encoding: .utf8) else {
                return .failure(.unreadable("not UTF-8 text"))
            }
            return .success(text)
        }, permissions: { path in
            let attributes = try? FileManager.default.attributesOfItem(atPath: path)
            return (attributes?[.posixPermissions] as? NSNumber)?.intValue
        })
    }
}
