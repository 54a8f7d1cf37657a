"""Push the gorilla's walking trot sideways at four points of its stride.

gf.push runs its trials in worker processes, which import this file again:
the `if __name__ == "__main__":` guard keeps them from starting the test
again themselves.

    python examples/push_test.py
"""
import gaitforge as gf


def main():
    result = gf.push("gorilla", "trot", speeds=[0.3], force=200.0, workers=1)[0.3]
    for i, phase in enumerate(result["phases"], 1):
        verdict = "survived" if phase["survived"] else "failed"
        print(f"phase {i} (push at {phase['start_s']:.2f} s): {verdict}, "
              f"peak tilt {phase['peak_tilt_deg']:.1f}°")
    print("200 N survived at every phase:", result["survived"])


if __name__ == "__main__":
    main()
