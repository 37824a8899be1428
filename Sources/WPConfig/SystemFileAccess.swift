#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension FileAccess {
    /// The real filesystem, relative paths resolved against the working directory: what
    /// `ConfigurationLoader` reads a configuration file (and the files it names) through, as the
    /// command-line tool does (`ConfigurationInputs(configPath:environment:files: .system)`).
    public static var system: FileAccess {
        // Bounded and incremental (``FileAccess/textFileLimit``): a huge file is refused with
        // the limit named, a FIFO is named as one and never blocks the read.
        FileAccess(read: { path in FileAccess.readText(ofFileAt: path) }, permissions: { path in
            // The link itself, not its target, as `FileManager.attributesOfItem` reports it.
            var info = stat()
            guard lstat(path, &info) == 0 else { return nil }
            return Int(info.st_mode & ~S_IFMT)
        }, directoryProblem: { path in
            var info = stat()
            guard stat(path, &info) == 0 else { return nil }  // created on start
            if info.st_mode & S_IFMT != S_IFDIR { return "is not a directory" }
            return access(path, W_OK | X_OK) == 0 ? nil : "is not writable"
        })
    }
}
