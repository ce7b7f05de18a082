package cu

// ProfilerStart and ProfilerStop mark the region a profiler started with
// its collection off (Nsight Compute's `ncu --profile-from-start off`)
// collects: the device check profiles one phase of a model's work this
// way, not its loading and warming up. They act on the current context;
// a driver without the entry points, or a run without a profiler, makes
// them no-ops.
func (d *Driver) ProfilerStart() error {
	if d.profStart == 0 {
		return nil
	}
	if r := d.call0(d.profStart); r != 0 {
		return d.err("cuProfilerStart", r)
	}
	return nil
}

// ProfilerStop ends the region ProfilerStart began.
func (d *Driver) ProfilerStop() error {
	if d.profStop == 0 {
		return nil
	}
	if r := d.call0(d.profStop); r != 0 {
		return d.err("cuProfilerStop", r)
	}
	return nil
}
