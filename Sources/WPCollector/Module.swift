// WPCollector: filled in by its issue; see docs/architecture.md.
