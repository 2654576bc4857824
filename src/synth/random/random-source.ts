/** The draws the synth engine needs from its one shared random stream. */
export interface RandomSource {
  /** Uniform double in [0, 1) with 53 random bits. */
  nextDouble(): number;
  /** Uniform signed 32-bit int. */
  nextInt(): number;
  /** Uniform int in [origin, bound); `origin < bound` is required. */
  nextIntBetween(origin: number, bound: number): number;
  /** Standard normal deviate. */
  nextGaussian(): number;
  /** Exponential deviate with mean 1. */
  nextExponential(): number;
}

/** A 64-bit word source: `step()` leaves the next output's int32 halves in `hi` / `lo`. */
export interface WordSource {
  hi: number;
  lo: number;
  step(): void;
  nextInt(): number;
}
