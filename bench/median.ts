/**
 * The lower median: the middle value, or the lower of the middle two, so that the figure printed is
 * always one that was measured.
 */
export const median = (xs: number[]): number =>
  [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;
