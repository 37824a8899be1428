// wpexporter — command-line entry point. Filled in by the foundation issue.
print("wpexporter")
