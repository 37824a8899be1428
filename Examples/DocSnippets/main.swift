// Compiles the examples of docs/*.md and of the libraries' main doc comments (see the other
// files of this target); built by every `swift build`, so a snippet that stops compiling fails
// CI. Running it does nothing.
print("The documentation's examples compile; see Examples/DocSnippets.")
