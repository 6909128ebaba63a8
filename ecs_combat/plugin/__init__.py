"""The plugin surface: hook specifications, the declarations and views plugins use, the
schedule of points with their payloads, restrictions, and the registry that loads plugins."""
