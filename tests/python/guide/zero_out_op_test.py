# TensorFlow's "Create an op" guide (extend/adding_an_op.md), zero_out_op_test.py,
# with `tensorflow` replaced by `opkit` in the import and nothing else changed.
# tests/python/test_guide_gradient.py runs it next to a zero_out.so.
import opkit as tf

class ZeroOutTest(tf.test.TestCase):
  def testZeroOut(self):
    zero_out_module = tf.load_op_library('./zero_out.so')
    with self.test_session():
      result = zero_out_module.zero_out([5, 4, 3, 2, 1])
      self.assertAllEqual(result.eval(), [5, 0, 0, 0, 0])

if __name__ == "__main__":
  tf.test.main()
