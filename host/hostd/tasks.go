package hostd

import (
	"errors"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"demiurge.dev/shared/hostv1"
)

// Tasks is `demiurge tasks` through the host: the task socket's request
// and replies on the host socket, for the front end's named principal
// only (a request claiming another is refused and audited as such).
func (s *Server) Tasks(req *hostv1.TasksRequest, stream hostv1.Host_TasksServer) error {
	from, err := s.admit(stream.Context())
	if err != nil {
		return err
	}
	m, err := s.h.Tasks()
	if err != nil {
		return status.Error(codes.Internal, err.Error())
	}
	var sendErr error
	m.AnswerTaskRequest(stream.Context(), from, s.principal(req.Principal), req.Request, func(b []byte) bool {
		sendErr = stream.Send(&hostv1.TasksReply{Reply: b})
		return sendErr == nil
	})
	if sendErr != nil && !errors.Is(sendErr, stream.Context().Err()) {
		return sendErr
	}
	return nil
}
