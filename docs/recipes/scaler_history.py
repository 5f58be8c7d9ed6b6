# Prints what the loss scaler did in a run of examples/mlp_training.mlir's
# @train, from the loss.npy, scale.npy and found.npy that amp-run wrote.
import sys

import numpy as np

loss, scale, found = (np.load("%s/%s.npy" % (sys.argv[1], name))
                      for name in ("loss", "scale", "found"))
print("steps: %d, skipped: %s" % (len(found), np.flatnonzero(found).tolist()))
print("scale after step:")
for step in [0] + (np.flatnonzero(np.diff(scale)) + 1).tolist():
    print("  %3d  %8d" % (step, scale[step]))
print("loss: %.3f at step 0, %.3f at step %d" % (loss[0], loss[-1],
                                                 len(loss) - 1))
