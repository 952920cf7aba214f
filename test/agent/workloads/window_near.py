"""A model that fills its device (73 of fakecuda's 80 GiB reserved) and trains 30 steps, slowly
enough for the sampler to look between them: for the recording windows' "near the device's total"."""
import time

import fakecuda

fakecuda.install()
fakecuda.use(73 << 30)
for i in range(30):
    fakecuda.step()
    time.sleep(0.03)
print("done")
