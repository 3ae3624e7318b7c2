// ext-opt lists ext's passes and pipelines next to upstream's.
