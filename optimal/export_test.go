package optimal

// WithoutCommutation returns cfg with the commutation filter off, so that
// tests and benchmarks measure what it saves.
func WithoutCommutation(cfg Config) Config {
	cfg.noCommute = true
	return cfg
}
